package httpapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestArrayElementsAsDecoder: for any JSON array, with any whitespace,
// arrayElements finds the elements encoding/json's Decoder reads, byte for
// byte; anything but an array is no array.
func TestArrayElementsAsDecoder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := []byte(jsonArrayGen().Draw(t, "array"))
		if !json.Valid(data) {
			t.Fatalf("generated invalid JSON: %s", data)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var want []string
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			want = append(want, string(raw))
		}
		got, ok := arrayElements(data)
		if !ok || len(got) != len(want) {
			t.Fatalf("arrayElements(%s) = %d elements, %v; want %d", data, len(got), ok, len(want))
		}
		for i := range want {
			if string(got[i]) != want[i] {
				t.Fatalf("element %d of %s: %q, want %q", i, data, got[i], want[i])
			}
		}
	})
	for _, notArray := range []string{`{"a":[1,2]}`, `"[1,2]"`, `12`, `null`, ``, `   `, `[1,2] 3`, `[1,}`, `[,1]`, `[1,]`, `[1 , ]`, `[1,,2]`, `[,]`} {
		if elems, ok := arrayElements([]byte(notArray)); ok {
			t.Errorf("arrayElements(%q) = %q, true; want no array", notArray, elems)
		}
	}
	for _, array := range []string{`[]`, ` [ ] `, "[\n1 ,\t\"a,]\\\"\" , [ ] ]"} {
		if _, ok := arrayElements([]byte(array)); !ok {
			t.Errorf("arrayElements(%q): not an array", array)
		}
	}
}

// TestSplitArray: the array is found where it starts, its end is the
// index after its ']', whatever follows, and nesting past the limit is
// refused (decodeFast leaves deep bodies to encoding/json's own limit).
func TestSplitArray(t *testing.T) {
	tests := []struct {
		data     string
		from     int
		maxDepth int
		want     []string
		end      int
	}{
		{`{"p":[1, "]" ,{}],"q":2}`, 5, 10, []string{`1`, `"]"`, `{}`}, 17},
		{`x[]y`, 1, 10, nil, 3},
		{`[[[1]]]`, 0, 1, nil, -1}, // the array itself is not counted
		{`[[[1]]]`, 0, 2, []string{`[[1]]`}, 7},
		{` [1]`, 0, 10, nil, -1}, // it starts at the '['
		{`[1,]`, 0, 10, nil, -1},
		{`[1`, 0, 10, nil, -1},
	}
	for _, tt := range tests {
		elems, end := splitArray([]byte(tt.data), tt.from, tt.maxDepth)
		var got []string
		for _, e := range elems {
			got = append(got, string(e))
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || end != tt.end {
			t.Errorf("splitArray(%q, %d, %d): end %d, want %d; elements (-want +got):\n%s", tt.data, tt.from, tt.maxDepth, end, tt.end, diff)
		}
	}
}

func jsonArrayGen() *rapid.Generator[string] {
	space := rapid.SampledFrom([]string{"", " ", "\n", "\t ", "\r\n  "})
	var value func(t *rapid.T, depth int) string
	value = func(t *rapid.T, depth int) string {
		kind := rapid.IntRange(0, 5).Draw(t, "kind")
		if depth > 3 {
			kind = rapid.IntRange(0, 2).Draw(t, "leaf")
		}
		switch kind {
		case 0:
			b, _ := json.Marshal(rapid.String().Draw(t, "string")) // escapes of every kind
			return string(b)
		case 1:
			return rapid.SampledFrom([]string{"0", "-1.5e3", "12345678901234567890", "true", "false", "null"}).Draw(t, "literal")
		case 2:
			return `"` + strings.Repeat(`\\`, rapid.IntRange(0, 3).Draw(t, "backslashes")) + `\"],{"` // quotes and brackets in a string
		case 3:
			var parts []string
			for range rapid.IntRange(0, 4).Draw(t, "n") {
				parts = append(parts, space.Draw(t, "s")+value(t, depth+1)+space.Draw(t, "s"))
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			var parts []string
			for range rapid.IntRange(0, 4).Draw(t, "n") {
				key, _ := json.Marshal(rapid.String().Draw(t, "key"))
				parts = append(parts, space.Draw(t, "s")+string(key)+space.Draw(t, "s")+":"+space.Draw(t, "s")+value(t, depth+1))
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	return rapid.Custom(func(t *rapid.T) string {
		var parts []string
		for range rapid.IntRange(0, 6).Draw(t, "elements") {
			parts = append(parts, space.Draw(t, "s")+value(t, 0)+space.Draw(t, "s"))
		}
		return space.Draw(t, "s") + "[" + strings.Join(parts, ",") + "]" + space.Draw(t, "s")
	})
}
