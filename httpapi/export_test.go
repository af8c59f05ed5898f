package httpapi

// RouteAccess is a route of the table with its access column, for the
// tests that walk every route.
type RouteAccess struct {
	Method, Path string
	Access       string // anyone, operator, or the organisation role the route needs
}

// Routes lists the route table.
func Routes() []RouteAccess {
	var out []RouteAccess
	for _, rt := range (&server{}).routes() {
		out = append(out, RouteAccess{rt.method, rt.path, string(rt.access)})
	}
	return out
}
