package calibrate

import "github.com/parallel-prophet/prophet/internal/sysinfo"

// System is what calibration reads about the machine from the operating
// system (see ReadSystem).
type System = sysinfo.System

// ReadSystem reads the CPU model and frequency from /proc/cpuinfo and the
// last-level cache from /sys/devices/system/cpu/cpu0/cache, with the
// documented defaults where they are missing (other systems than Linux).
func ReadSystem() System { return sysinfo.Read() }
