package httpapi

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
	"github.com/disburse/disburse/internal/text"
)

// A body is read into a struct member by member: each value is checked
// against its field's type, and one of the wrong type is set aside in the
// struct's WrongTypes rather than stopping the read, so that every failure
// of every field comes back in one answer. A field is found by its `json`
// tag, or by its Go name, matched as encoding/json matches them (the last
// of repeated members wins, case is ignored).

// kind is what a field holds, and so which JSON values it takes.
type kind int

const (
	kindString  kind = iota // a JSON string; null leaves it empty
	kindNumber              // disburse.Number: a JSON number's text, never a float
	kindBool                // bool or *bool: true or false
	kindInt                 // int64 or *int64: a whole number
	kindList                // a slice of structs: an array of objects, read one by one
	kindStrings             // []string: an array of strings, read whole
	kindNone                // a type decode does not read
)

var (
	numberType     = reflect.TypeFor[disburse.Number]()
	wrongTypesType = reflect.TypeFor[disburse.WrongTypes]()
)

// structPlan is how one struct type is read.
type structPlan struct {
	fields     []fieldPlan
	wrongTypes int // the index of its disburse.WrongTypes field, or -1
}

type fieldPlan struct {
	name     string         // the JSON name: "externalId"
	field    disburse.Field // the name its failures give: "ExternalId"
	index    int
	kind     kind
	pointer  bool        // *bool, *int64: null and absent stay nil
	elements *structPlan // of a kindList
}

var plans sync.Map // reflect.Type → *structPlan

// planOf is t's plan, made once per type. A type decode cannot read is a
// programming error, found by the first test that decodes it.
func planOf(t reflect.Type) *structPlan {
	if p, ok := plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := &structPlan{wrongTypes: -1}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		switch {
		case sf.Type == wrongTypesType:
			p.wrongTypes = i
			continue
		case !sf.IsExported() || name == "-":
			continue
		case name == "":
			name = sf.Name
		}
		f := fieldPlan{name: name, field: disburse.Field(strings.ToUpper(name[:1]) + name[1:]), index: i}
		ft := sf.Type
		if ft.Kind() == reflect.Pointer {
			f.pointer, ft = true, ft.Elem()
		}
		f.kind, f.elements = kindOf(ft)
		if f.kind == kindNone {
			panic(fmt.Sprintf("decode: %s.%s has a type decode does not read: %s", t, sf.Name, sf.Type))
		}
		p.fields = append(p.fields, f)
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*structPlan)
}

// kindOf is how decode reads a field of type ft, and for a list of
// structs their plan; kindNone for a type it does not read.
func kindOf(ft reflect.Type) (kind, *structPlan) {
	switch {
	case ft == numberType:
		return kindNumber, nil
	case ft.Kind() == reflect.String:
		return kindString, nil
	case ft.Kind() == reflect.Bool:
		return kindBool, nil
	case ft.Kind() == reflect.Int64:
		return kindInt, nil
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
		return kindStrings, nil
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
		elements := planOf(ft.Elem())
		if elements.wrongTypes < 0 {
			panic(fmt.Sprintf("decode: %s has no WrongTypes field for its elements' wrong types", ft.Elem()))
		}
		return kindList, elements
	}
	return kindNone, nil
}

// field is the field the member name is read into, or nil: an exact match
// first, then one that differs in case only, as encoding/json matches.
func (p *structPlan) field(name []byte) *fieldPlan {
	for i := range p.fields {
		if string(name) == p.fields[i].name {
			return &p.fields[i]
		}
	}
	for i := range p.fields {
		if bytes.EqualFold(name, []byte(p.fields[i].name)) {
			return &p.fields[i]
		}
	}
	return nil
}

// reader reads one body; buf is its scratch space for unquoting.
type reader struct {
	dec *jsontext.Decoder
	buf []byte
	// strict refuses members the struct does not name (version
	// 2026-12-01, docs/versioning.md): each is kept in unknown, with the
	// position of its list element, if any, in index (-1 for none).
	strict  bool
	unknown []disburse.FieldError
	index   int
}

// decodeInto reads the object at the decoder into dst, a pointer to a
// struct. wrong are the wrong types of a struct without a WrongTypes
// field, in the struct's field order, for decode to report.
func decodeInto(dec *jsontext.Decoder, dst any, strict bool) ([]disburse.FieldError, error) {
	v := reflect.ValueOf(dst).Elem()
	p := planOf(v.Type())
	rd := reader{dec: dec, strict: strict, index: -1}
	w, err := rd.object(p, v)
	if err == nil && len(rd.unknown) > 0 {
		err = &disburse.Error{Code: disburse.CodeInvalid, Message: "the body has members this version does not know", Fields: rd.unknown}
	}
	if err != nil || p.wrongTypes >= 0 {
		return nil, err
	}
	return p.failures(w), nil
}

// failures are the wrong types w as failures, in the struct's field order.
func (p *structPlan) failures(w disburse.WrongTypes) []disburse.FieldError {
	var out []disburse.FieldError
	for _, f := range p.fields {
		if t, ok := w[f.field]; ok {
			out = append(out, disburse.FieldError{FieldName: string(f.field), FieldValue: text.Short(t.Value), ErrorMessage: t.Message})
		}
	}
	return out
}

// wrongTypesError is decode's 400 for the wrong types w of dst, a pointer
// to a struct that keeps them in its WrongTypes field so that its handler
// may take one first (a null that means something); nil for none.
func wrongTypesError(dst any, w disburse.WrongTypes) error {
	if len(w) == 0 {
		return nil
	}
	return &disburse.Error{Code: disburse.CodeInvalid, Message: "the body has values of the wrong type", Fields: planOf(reflect.TypeOf(dst).Elem()).failures(w)}
}

// object reads a JSON object into v, a struct planned by p, and returns
// its wrong types, which it has also put in v's WrongTypes field if it has one.
func (rd *reader) object(p *structPlan, v reflect.Value) (disburse.WrongTypes, error) {
	if _, err := rd.dec.ReadToken(); err != nil { // '{'
		return nil, err
	}
	var w disburse.WrongTypes
	for rd.dec.PeekKind() != '}' {
		name, err := rd.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		n, err := rd.name(name)
		if err != nil {
			return nil, err
		}
		f := p.field(n)
		if f == nil {
			if err := rd.skipUnknown(n); err != nil {
				return nil, err
			}
			continue
		}
		wrong, err := rd.value(f, v.Field(f.index))
		if err != nil {
			return nil, err
		}
		switch {
		case wrong != nil && w == nil:
			w = disburse.WrongTypes{f.field: *wrong}
		case wrong != nil:
			w[f.field] = *wrong
		default:
			delete(w, f.field) // the last of repeated members counts
		}
	}
	if _, err := rd.dec.ReadToken(); err != nil { // '}'
		return nil, err
	}
	if len(w) == 0 {
		return nil, nil
	}
	if p.wrongTypes >= 0 {
		v.Field(p.wrongTypes).Set(reflect.ValueOf(w))
	}
	return w, nil
}

// name is a member's name, unquoted. A name that is not UTF-8 text names
// no field: the body fails on Body (docs/api.md section 2).
func (rd *reader) name(v jsontext.Value) ([]byte, error) {
	if plain(v) {
		return v[1 : len(v)-1], nil
	}
	var err error
	if rd.buf, err = jsontext.AppendUnquote(rd.buf[:0], v); err != nil {
		return nil, disburse.Invalid("Body", string(rd.buf), "a member name of the body is not valid UTF-8 text")
	}
	return rd.buf, nil
}

// value reads the next value into the field fv, or returns its wrong type.
func (rd *reader) value(f *fieldPlan, fv reflect.Value) (*disburse.WrongType, error) {
	if f.kind == kindList && rd.dec.PeekKind() == '[' {
		return nil, rd.list(f, fv)
	}
	v, err := rd.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	if v.Kind() == 'n' {
		return null(f, fv), nil
	}
	if f.kind == kindStrings {
		return rd.strings(f, v, fv), nil
	}
	return rd.scalar(f, v, fv), nil
}

// null is a JSON null for f: no value, as encoding/json has it, but a
// wrong type where a number is due.
func null(f *fieldPlan, fv reflect.Value) *disburse.WrongType {
	if f.kind == kindNumber {
		return &disburse.WrongType{Value: "null", Message: must(f.name, "a number"), Null: true}
	}
	if f.pointer || f.kind == kindList || f.kind == kindStrings {
		fv.SetZero()
	}
	return nil
}

// scalar stores a string, number or boolean v in fv, or returns its wrong
// type when f takes another kind.
func (rd *reader) scalar(f *fieldPlan, v jsontext.Value, fv reflect.Value) *disburse.WrongType {
	k := v.Kind()
	switch {
	case f.kind == kindString && k == '"':
		s, valid := unquote(v, rd.buf)
		if !valid {
			return notUTF8(f.name, s)
		}
		setString(fv, f.pointer, s)
	case f.kind == kindNumber && k == '0':
		setString(fv, f.pointer, string(v))
	case f.kind == kindBool && (k == 't' || k == 'f'):
		set(fv, f.pointer, reflect.ValueOf(k == 't'))
	case f.kind == kindInt && k == '0':
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return &disburse.WrongType{Value: valueText(v), Message: must(f.name, "a whole number")}
		}
		set(fv, f.pointer, reflect.ValueOf(n))
	default:
		if f.kind == kindList {
			fv.SetZero()
		}
		return &disburse.WrongType{Value: valueText(v), Message: must(f.name, takes[f.kind])}
	}
	return nil
}

// takes names, for a wrong type's message, the JSON value each kind takes.
var takes = map[kind]string{
	kindString: "a string", kindNumber: "a number", kindBool: "true or false",
	kindInt: "a whole number", kindList: "an array", kindStrings: "an array of strings",
}

// strings reads an array of strings into the slice fv, or returns its
// wrong type: anything else, or an array holding anything but strings.
func (rd *reader) strings(f *fieldPlan, v jsontext.Value, fv reflect.Value) *disburse.WrongType {
	wrong := &disburse.WrongType{Value: valueText(v), Message: must(f.name, takes[f.kind])}
	if v.Kind() != '[' {
		return wrong
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil { // '['
		return wrong
	}
	list := reflect.MakeSlice(fv.Type(), 0, 4)
	for dec.PeekKind() != ']' {
		e, err := dec.ReadValue()
		if err != nil || e.Kind() != '"' {
			return wrong
		}
		s, valid := unquote(e, nil)
		if !valid {
			return notUTF8(f.name, s)
		}
		list = reflect.Append(list, reflect.ValueOf(s).Convert(fv.Type().Elem()))
	}
	fv.Set(list)
	return nil
}

// setString stores s in the string field fv, or in a new string fv
// points to (an optional member: nil when absent).
func setString(fv reflect.Value, pointer bool, s string) {
	if pointer {
		p := reflect.New(fv.Type().Elem())
		p.Elem().SetString(s)
		fv.Set(p)
		return
	}
	fv.SetString(s)
}

// set stores x in fv, or in a new value fv points to.
func set(fv reflect.Value, pointer bool, x reflect.Value) {
	if pointer {
		p := reflect.New(x.Type())
		p.Elem().Set(x)
		x = p
	}
	fv.Set(x)
}

// list reads an array into the slice fv, element by element as the body
// streams in: an element that is not an object is kept as an empty one
// whose WrongTypes name the list's field, so that the domain reports it
// with the index of the element. The elements are read into chunks and
// copied once into a slice of their number: a slice grown an element at
// a time was copied and cleared again at each growth, a third of the
// decoding of a request of payments (docs/benchmarks.md, "The add and
// the stores").
func (rd *reader) list(f *fieldPlan, fv reflect.Value) error {
	if _, err := rd.dec.ReadToken(); err != nil { // '['
		return err
	}
	var full []reflect.Value
	chunk := reflect.MakeSlice(fv.Type(), firstChunk, firstChunk)
	n, k := 0, 0 // elements read; elements in chunk
	for ; rd.dec.PeekKind() != ']'; n++ {
		if k == chunk.Len() {
			full = append(full, chunk)
			size := min(2*k, lastChunk)
			chunk, k = reflect.MakeSlice(fv.Type(), size, size), 0
		}
		if err := rd.element(f, chunk.Index(k), n); err != nil {
			return err
		}
		k++
	}
	if _, err := rd.dec.ReadToken(); err != nil { // ']'
		return err
	}
	if n == 0 {
		fv.SetLen(0) // [] is as empty as it was: nil stays nil
		return nil
	}
	list := reflect.MakeSlice(fv.Type(), n, n)
	at := 0
	for _, c := range append(full, chunk.Slice(0, k)) {
		at += reflect.Copy(list.Slice(at, n), c)
	}
	fv.Set(list)
	return nil
}

// The chunks of a list: small for the bodies of one element, and at most
// lastChunk, so that the copy of the last is no larger than the list's.
const firstChunk, lastChunk = 16, 4096

// element reads the list's element i into elem, a zero value.
func (rd *reader) element(f *fieldPlan, elem reflect.Value, i int) error {
	switch rd.dec.PeekKind() {
	case '{':
		rd.index = i
		_, err := rd.object(f.elements, elem)
		rd.index = -1
		return err
	case 'n': // null: an empty element, as encoding/json has it
		return rd.dec.SkipValue()
	default:
		v, err := rd.dec.ReadValue()
		if err != nil {
			return err
		}
		wrong := disburse.WrongType{Value: valueText(v), Message: must(f.name+"["+strconv.Itoa(i)+"]", "a JSON object")}
		elem.Field(f.elements.wrongTypes).Set(reflect.ValueOf(disburse.WrongTypes{f.field: wrong}))
		return nil
	}
}

// skipUnknown skips the value of a member named name that the struct does
// not name; a strict reader keeps it as a failure.
func (rd *reader) skipUnknown(name []byte) error {
	if !rd.strict {
		return rd.dec.SkipValue()
	}
	shownName := string(name) // name lasts until the next read
	v, err := rd.dec.ReadValue()
	if err != nil {
		return err
	}
	failure := disburse.FieldError{FieldName: shownName, FieldValue: text.Short(valueText(v)),
		ErrorMessage: fmt.Sprintf("%q is not a member of this body in version %s (docs/versioning.md)", shownName, apiversion.V20261201)}
	if rd.index >= 0 {
		i := rd.index
		failure.Index = &i
	}
	rd.unknown = append(rd.unknown, failure)
	return nil
}
