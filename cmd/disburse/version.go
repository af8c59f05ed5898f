package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and revision are stamped by the release build (deploy/build.sh,
// the README's "Building a release"): -ldflags "-X main.version=…
// -X main.revision=…". A build that stamps nothing falls back on what the
// Go toolchain recorded.
var version, revision string

// buildVersion is the version and VCS revision the binary was built from:
// the stamped ones, else the module's version and revision as the Go
// toolchain recorded them ("(devel)" and "unknown" when it recorded none,
// as in go run, tests, or a build with -buildvcs=false).
func buildVersion() (string, string) {
	v, r := "(devel)", "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		v, r = recordedVersion(info, v, r)
	}
	if version != "" {
		v = version
	}
	if revision != "" {
		r = revision
	}
	return v, r
}

// recordedVersion reads the main module's version and VCS revision from
// the build info, keeping v and r where it records none.
func recordedVersion(info *debug.BuildInfo, v, r string) (string, string) {
	if info.Main.Version != "" {
		v = info.Main.Version
	}
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			r = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		r += "+modified"
	}
	return v, r
}

// printVersion is `disburse version` and `disburse --version`.
func printVersion(out io.Writer) {
	v, r := buildVersion()
	fmt.Fprintf(out, "disburse %s (revision %s, %s)\n", v, r, runtime.Version())
}
