package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// buildVersion is the module's version and the VCS revision the binary
// was built from, as the Go toolchain recorded them ("(devel)" and
// "unknown" when it recorded none, as in go run or tests).
func buildVersion() (version, revision string) {
	version, revision = "(devel)", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return version, revision
	}
	if info.Main.Version != "" {
		version = info.Main.Version
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		revision += "+modified"
	}
	return version, revision
}

// printVersion is `disburse version` and `disburse --version`.
func printVersion(out io.Writer) {
	version, revision := buildVersion()
	fmt.Fprintf(out, "disburse %s (revision %s, %s)\n", version, revision, runtime.Version())
}
