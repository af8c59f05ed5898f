// Command gen writes the project's generated Go files; go generate runs it
// (go generate ./... regenerates everything). Each file has a test beside
// it that fails when the file is stale.
//
//	gen paymentjson OPENAPI OUT   httpapi's payment answer (internal/gen/paymentjson)
//	gen paymentsql OUT            sqlstore's payment columns (internal/gen/paymentsql)
//	gen stamp OUT FILES           what a generated file was made from (internal/gen/stamp)
package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/disburse/disburse/internal/gen/paymentjson"
	"github.com/disburse/disburse/internal/gen/paymentsql"
	"github.com/disburse/disburse/internal/gen/stamp"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var src []byte
	var err error
	switch {
	case len(args) == 3 && args[0] == "paymentjson":
		var doc []byte
		if doc, err = os.ReadFile(args[1]); err != nil {
			return err
		}
		src, err = paymentjson.Generate(doc)
	case len(args) == 2 && args[0] == "paymentsql":
		src, err = paymentsql.Generate()
	case len(args) >= 3 && args[0] == "stamp":
		src, err = stamp.Of(args[2:]...)
		args = args[:2] // the output is the second argument
	default:
		return fmt.Errorf("usage: gen paymentjson OPENAPI OUT | gen paymentsql OUT | gen stamp OUT FILES")
	}
	if err != nil {
		return err
	}
	out := args[len(args)-1]
	if old, err := os.ReadFile(out); err == nil && bytes.Equal(old, src) {
		return nil // unchanged: leave the file's time be
	}
	return os.WriteFile(out, src, 0o644)
}
