package httpapi

import (
	"math"
)

// arrayElements splits the JSON array data into its elements' bytes,
// without their surrounding whitespace, and reports whether data is an
// array. data must be valid JSON, as json.Unmarshal has checked it before
// it calls an UnmarshalJSON: this only follows strings and nesting to find
// the commas between elements, one byte at a time, which is several times
// faster than encoding/json's scanner. Malformed input is no array.
func arrayElements(data []byte) ([][]byte, bool) {
	elems, end := splitArray(data, skipSpace(data, 0), math.MaxInt)
	return elems, end >= 0 && skipSpace(data, end) == len(data)
}

// splitArray splits the array that starts at data[i] and returns its
// elements and the index just past its closing ']', or -1 when data[i:]
// does not start with an array it can split: nesting inside it deeper
// than maxDepth, a comma with no element before it or after it (`[,1]`,
// `[1,,2]`, `[1,]`), an unmatched '}'. It does not check the elements
// themselves, but being strict about the commas means that, when every
// element is valid JSON, so is the array: decodeFast relies on that, as
// it never has the whole body checked.
func splitArray(data []byte, i, maxDepth int) (elems [][]byte, end int) {
	if i >= len(data) || data[i] != '[' {
		return nil, -1
	}
	depth, start, inString := 0, -1, false
	for i++; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++ // the escaped byte, whatever it is
			} else if c == '"' {
				inString = false
			}
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		}
		if start < 0 && depth == 0 && c != ']' && c != ',' {
			start = i
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > maxDepth {
				return nil, -1
			}
		case ']', '}':
			if depth > 0 {
				depth--
				continue
			}
			if c == '}' || (start < 0 && len(elems) > 0) { // `[1,]`
				return nil, -1
			}
			if start >= 0 {
				elems = append(elems, trimSpaceRight(data[start:i]))
			}
			return elems, i + 1
		case ',':
			if depth == 0 {
				if start < 0 {
					return nil, -1
				}
				elems = append(elems, trimSpaceRight(data[start:i]))
				start = -1
			}
		}
	}
	return nil, -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n') {
		i++
	}
	return i
}

func trimSpaceRight(b []byte) []byte {
	n := len(b)
	for n > 0 && (b[n-1] == ' ' || b[n-1] == '\t' || b[n-1] == '\r' || b[n-1] == '\n') {
		n--
	}
	return b[:n]
}

// parallelDecodes is the fewest elements decoded on several CPUs at once:
// below it, starting goroutines costs more than it saves.
const parallelDecodes = 1000
