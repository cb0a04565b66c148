// Package progress draws a small progress bar for prophet's long-running
// commands (calibrate, validate):
//
//	calibrate memory [=========>          ] 12/40  30% ETA 20s
//
// On a terminal the line is redrawn in place with a carriage return; on
// anything else (a log file, CI) a plain line is printed at most every few
// seconds, so logs hold no \r garbage; with a nil writer nothing is
// printed at all. A nil *Bar is valid and does nothing.
package progress
