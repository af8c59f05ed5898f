package httpapi

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
)

// Version 2026-12-01's pages (docs/versioning.md): a list answers
// {"data", "hasMore", "nextCursor"} and takes cursor and limit; skip and
// take are refused. The store reads by key, after the last item of the
// page before, so a page costs the same at any depth.

// pageJSON is a page of a list in version 2026-12-01.
type pageJSON[J any] struct {
	Data       []J     `json:"data"`
	HasMore    bool    `json:"hasMore"`
	NextCursor *string `json:"nextCursor"`
}

// keyset is a 2026-12-01 list request: after the item with id after
// (empty: from the start), limit items, of the list named by scope (the
// list and its filters), which its cursors are bound to.
type keyset struct {
	scope string
	after string
	limit int
}

// keysetOf reads r's cursor and limit; nil for a request of the first
// version, which pages by skip and take. scope names the list and its
// filters: a cursor of another list, or of other filters, is refused.
func keysetOf(r *http.Request, scope ...string) (*keyset, error) {
	if !since20261201(r) {
		return nil, nil
	}
	q := r.URL.Query()
	var v disburse.Validation
	for _, old := range []struct{ param, field string }{{"skip", "Skip"}, {"take", "Take"}, {"after", "After"}} {
		if q.Has(old.param) {
			v.Add(-1, old.field, q.Get(old.param), old.param+" is not taken in version "+apiversion.V20261201+": page with cursor and limit (docs/versioning.md)")
		}
	}
	k := &keyset{scope: strings.Join(scope, "\x00"), limit: maxLimit}
	if raw := q.Get("limit"); q.Has("limit") {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxLimit {
			v.Add(-1, "Limit", raw, "limit must be a whole number from 1 to 1000")
		}
		k.limit = n
	}
	if raw := q.Get("cursor"); q.Has("cursor") {
		after, ok := k.open(raw)
		if !ok {
			v.Add(-1, "Cursor", raw, "cursor must be the nextCursor of a page of this list, with the same filters")
		}
		k.after = after
	}
	return k, v.Err()
}

// maxLimit is both the default and the upper bound of limit, as of take.
const maxLimit = 1000

// cursor is the opaque cursor of the page after the item with id: the
// id, and a check that binds it to the list and its filters. The check
// is no secret (an organisation reads only its own items whatever the
// cursor says); it makes a cursor that was altered, cut, or taken to
// another list or filter a 400 rather than a wrong page.
func (k *keyset) cursor(id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(id + "." + k.check(id)))
}

// open is the id a cursor names, if the cursor is one of k's list.
func (k *keyset) open(cursor string) (string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return "", false
	}
	id, check, ok := strings.Cut(string(raw), ".")
	if !ok || check != k.check(id) || !disburse.ValidID(id) {
		return "", false
	}
	return id, true
}

func (k *keyset) check(id string) string {
	sum := sha256.Sum256([]byte("disburse cursor\x00" + k.scope + "\x00" + id))
	return hex.EncodeToString(sum[:8])
}

// query is the domain's list query for k, in q.
func (k *keyset) query(q disburse.ListQuery) disburse.ListQuery {
	q.Skip, q.Take, q.Keyset, q.After = "", strconv.Itoa(k.limit), true, k.after
	return q
}

// writePage answers a page of items, which the store read with one more
// than k.limit to tell whether more follow.
func writePage[T, J any](w http.ResponseWriter, k *keyset, items []T, id func(T) string, convert func(T) J) error {
	p := pageJSON[J]{}
	if len(items) > k.limit {
		items = items[:k.limit]
		next := k.cursor(id(items[len(items)-1]))
		p.HasMore, p.NextCursor = true, &next
	}
	p.Data = toList(items, convert)
	return writeJSON(w, http.StatusOK, p)
}
