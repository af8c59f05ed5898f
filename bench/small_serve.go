package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The --small-requests mode's service runs as a child process, `disburse
// serve` of the bench's own binary, so that its CPU time, read from
// /proc/PID/stat, is the service's alone: neither the load generator's nor
// the bench's (docs/benchmarks.md, "Small requests").

// servedProcess is a running `disburse serve`.
type servedProcess struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:PORT
	done chan error
}

// servingLine is serve's log line once it takes requests (cmd/disburse/serve.go).
var servingLine = regexp.MustCompile(`msg="disburse serving" addr=(\S+)`)

// serveStartLimit bounds how long serve may take to migrate and listen.
const serveStartLimit = time.Minute

// startServe runs `exe serve` on url, on a loopback port of its choosing,
// with the bench's operator token, budgets no load of the bench reaches
// (the limiter still runs on every request, as in production), and the
// background loops asleep for the run: what is measured is requests. Its
// log, a line a request as in production, is read and dropped.
func startServe(ctx context.Context, exe, url, admin string) (*servedProcess, error) {
	if exe == "" {
		return nil, errors.New("bench: --small-requests runs the disburse binary's serve, and none was given")
	}
	cmd := exec.Command(exe, "serve", "--listen", "127.0.0.1:0", "--database-url", url, "--admin-token", admin,
		"--rate-limit-organisation", "100000000/1m", "--rate-limit-operator", "100000000/1m",
		"--rate-limit-address", "100000000/1m", "--worker-interval", "1h")
	cmd.Env = withoutDisburseVariables(os.Environ())
	// A bench that dies, by a signal or a panic, takes its serve with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &servedProcess{cmd: cmd, done: make(chan error, 1)}
	addr := make(chan string, 1)
	var tail lastLines
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			tail.add(sc.Text())
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		p.done <- cmd.Wait()
	}()
	select {
	case a := <-addr:
		p.base = "http://" + a
		return p, nil
	case err := <-p.done:
		return nil, fmt.Errorf("bench: serve ended before serving: %v\n%s", err, tail.String())
	case <-time.After(serveStartLimit):
	case <-ctx.Done():
	}
	p.stop()
	return nil, fmt.Errorf("bench: serve did not start\n%s", tail.String())
}

// withoutDisburseVariables drops DISBURSE_* from env: the child's settings
// are its flags, never a deployment's environment.
func withoutDisburseVariables(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISBURSE_") {
			out = append(out, kv)
		}
	}
	return out
}

// stop ends serve as systemd would (SIGTERM), and kills it if it has not
// ended within its shutdown grace.
func (p *servedProcess) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// userHZ is the unit of /proc/PID/stat's CPU times on Linux, fixed for
// user space whatever the kernel's tick.
const userHZ = 100

// cpu is the process's CPU time so far, user and system, its threads'
// together (proc(5): utime and stime, fields 14 and 15).
func (p *servedProcess) cpu() (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command's name, field 2, is in parentheses and may hold spaces.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("bench: /proc/%d/stat: unexpected %q", p.cmd.Process.Pid, b)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	return time.Duration(utime+stime) * time.Second / userHZ, nil
}

// lastLines keeps the last lines of a log, to show why a process ended.
type lastLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *lastLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	if len(l.lines) > 20 {
		l.lines = l.lines[1:]
	}
}

func (l *lastLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// peakRSSMBOf is process pid's peak resident set (VmHWM), 0 when unread.
func peakRSSMBOf(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return float64(int64(kb/1024*10+0.5)) / 10
		}
	}
	return 0
}
