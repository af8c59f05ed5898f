package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	apiclient "github.com/disburse/disburse/client"
)

// batchesExport is "batches export ID": the batch's results, the CSV file
// of GET /batches/{id}/payments.csv (docs/api.md section 4.4), copied as
// it arrives to standard output, or to --out FILE, which is replaced only
// once the whole file has come.
func batchesExport(ctx context.Context, fs *flag.FlagSet, a *apiFlags, args []string) error {
	outPath := fs.String("out", "", "write the CSV to this file (replaced once the whole file has come) instead of standard output")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(pos) != 1:
		return usageError("usage: disburse batches export ID [--out FILE]")
	case a.json:
		return usageError("batches export writes CSV: --json does not apply")
	}
	api, err := a.connect()
	if err != nil {
		return err
	}
	res, err := api.ExportPayments(ctx, pos[0])
	if err != nil {
		return serviceError(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
		return serviceError(apiclient.ResponseError(res.StatusCode, body))
	}
	if *outPath == "" {
		_, err := copyExport(a.out, res.Body)
		return err
	}
	lines, err := writeFileWhole(*outPath, res.Body)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.errOut, "%d payments written to %s\n", max(lines-1, 0), *outPath)
	return nil
}

// writeFileWhole copies body into a temporary file beside path and
// renames it to path once body has ended: a download cut short leaves
// path as it was. It returns the file's lines.
func writeFileWhole(path string, body io.Reader) (int, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return 0, err
	}
	lines, err := copyExport(tmp, body)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return 0, err
	}
	return lines, nil
}

// copyExport copies the file from body to dst and counts its lines (no
// cell holds a line break: text is refused with control characters). A
// failure to read is the service's (exit 3): the server breaks the
// connection when it cannot finish the file.
func copyExport(dst io.Writer, body io.Reader) (int, error) {
	src := &countingReader{r: body}
	_, err := io.Copy(dst, src)
	switch {
	case src.err != nil && !errors.Is(src.err, io.EOF):
		return 0, serviceError(fmt.Errorf("the file was cut short: %w", src.err))
	case err != nil:
		return 0, err
	}
	return src.lines, nil
}

// countingReader counts the lines it reads and keeps its reader's error.
type countingReader struct {
	r     io.Reader
	lines int
	err   error
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.lines += bytes.Count(p[:n], []byte{'\n'})
	c.err = err
	return n, err
}
