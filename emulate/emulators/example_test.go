package emulators_test

import (
	"fmt"

	"github.com/parallel-prophet/prophet/emulate/emulators"
)

// ExampleParse turns a --emulator flag's value into emulators.
func ExampleParse() {
	emus, err := emulators.Parse("ff,syn", emulators.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range emus {
		fmt.Println(e.Name())
	}
	_, err = emulators.Parse("oracle", emulators.Options{})
	fmt.Println(err)
	// Output:
	// ff
	// syn
	// unknown emulator "oracle" (want ff, syn)
}
