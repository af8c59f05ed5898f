package httpapi

import (
	"bufio"
	"io"
	"os"

	"github.com/disburse/disburse"
)

// spool keeps a submit's answer, the JSON of its payments, in a temporary
// file while the submit writes them (a disburse.AnswerSpool): after the
// commit the file is copied out, rather than every payment read back from
// the store. A million payments' JSON is hundreds of megabytes, which do
// not belong in memory. Should the file fail, the spool says so (failed) and
// the answer is read from the store as before.
type spool struct {
	f    *os.File
	out  *bufio.Writer
	n    int    // payments spooled
	item []byte // one payment's JSON, its memory reused for the next
	err  error  // the first failure: the spool is not used
}

var _ disburse.AnswerSpool = (*spool)(nil)

// newSpool opens the file in dir (empty: os.TempDir()), unlinked at once
// so that nothing is left behind whatever happens to the process.
func newSpool(dir string) *spool {
	f, err := os.CreateTemp(dir, "disburse-submit-*.json")
	if err != nil {
		return &spool{err: err}
	}
	s := &spool{f: f, out: bufio.NewWriterSize(f, 64<<10)}
	s.fail(os.Remove(f.Name()))
	return s
}

func (s *spool) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

func (s *spool) failed() bool { return s.err != nil }

// Restart empties the file: the submit's transaction runs again.
func (s *spool) Restart() {
	if s.failed() {
		return
	}
	s.n = 0
	s.out.Reset(s.f)
	s.fail(s.f.Truncate(0))
	_, err := s.f.Seek(0, io.SeekStart)
	s.fail(err)
}

// Page appends the payments' JSON, comma separated.
func (s *spool) Page(payments []disburse.Payment) {
	if s.failed() {
		return
	}
	for _, p := range payments {
		s.item = s.item[:0]
		if s.n > 0 {
			s.item = append(s.item, ',')
		}
		s.item = appendPayment(s.item, p)
		s.n++
		if _, err := s.out.Write(s.item); err != nil {
			s.fail(err)
			return
		}
	}
}

// payments returns the spooled JSON, from its start, and how many payments
// it holds.
func (s *spool) payments() (io.Reader, int, error) {
	if err := s.out.Flush(); err != nil {
		return nil, 0, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, err
	}
	return s.f, s.n, nil
}

func (s *spool) close() {
	if s.f != nil {
		s.f.Close()
	}
}
