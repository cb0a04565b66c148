// Package annotate is a stand-in with the real package's API, for the
// analyzer's tests.
package annotate

func SecBegin(name string)          {}
func SecEnd(nowait bool)            {}
func TaskBegin(name string)         {}
func TaskEnd()                      {}
func LockBegin(id int)              {}
func LockEnd(id int)                {}
func LockIndexedBegin(id int)       {}
func LockIndexed(id int, fn func()) { fn() }
func Stop() error                   { return nil }
func Task(name string, fn func())   { fn() }
func Lock(id int, fn func())        { fn() }
func Loop(n int, body func(i int))  {}
func Record(fn func()) (any, error) { return nil, nil }
func SetupBegin()                   {}
func SetupEnd()                     {}
func Setup(fn func())               { fn() }
