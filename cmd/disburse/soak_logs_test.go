package main

import (
	"regexp"
	"slices"
	"strings"
)

// What the soak reads in its processes' logs, for its report and its
// check of every 500.

// timeline lists the faults and starts, and the lines logged about
// leases, each at its time of day, for the report.
func (f *fleet) timeline() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var lines []string
	for _, x := range slices.Concat(f.faults, f.starts) {
		lines = append(lines, x.from.UTC().Format("15:04:05.000")+" "+x.what)
	}
	for _, s := range f.all {
		for line := range strings.Lines(s.log.String()) {
			if m := logTime.FindStringSubmatch(line); m != nil && strings.Contains(line, "lease") {
				lines = append(lines, m[1]+" "+strings.TrimSpace(line[len(m[0]):]))
			}
		}
	}
	slices.Sort(lines)
	return "\n  " + strings.Join(lines, "\n  ")
}

// logTime is the time of day of a text log line.
var logTime = regexp.MustCompile(`^time=\S+T(\d\d:\d\d:\d\d\.\d{3})\S*`)

// warnings counts the WARN and ERROR lines of every process's log by
// their message, and returns the first line of each message whole: an
// internal error's line holds its cause.
func (f *fleet) warnings() (counts map[string]int, firstLines []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	counts = map[string]int{}
	for _, s := range f.all {
		for line := range strings.Lines(s.log.String()) {
			if !strings.Contains(line, "level=ERROR") && !strings.Contains(line, "level=WARN") {
				continue
			}
			m := logMessage.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			if counts[m[1]]++; counts[m[1]] == 1 {
				firstLines = append(firstLines, strings.TrimSpace(line))
			}
		}
	}
	return counts, firstLines
}

// internalErrors returns the log lines of every 500 the processes
// answered.
func (f *fleet) internalErrors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var lines []string
	for _, s := range f.all {
		for line := range strings.Lines(s.log.String()) {
			if strings.Contains(line, `msg="internal error"`) {
				lines = append(lines, strings.TrimSpace(line))
			}
		}
	}
	return lines
}

// logMessage is the message of a text log line.
var logMessage = regexp.MustCompile(`level=\w+ msg=("[^"]*"|\S+)`)
