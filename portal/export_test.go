package portal

// Route is one line of the route table, for tests that walk all of them.
type Route struct {
	Method, Path string
	OperatorOnly bool
	Public       bool
	Access       string // public, operator, or the organisation role the route needs
}

// Routes lists the route table.
func Routes() []Route {
	var out []Route
	for _, rt := range (&portal{}).routes() {
		out = append(out, Route{rt.method, rt.path, rt.access == operatorOnly, rt.access == public, string(rt.access)})
	}
	return out
}

// SafeNext is safeNext, for its table test.
var SafeNext = safeNext
