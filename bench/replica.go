package bench

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/disburse/disburse/sqlstore"
)

// replica is a second API server in this process over the same database,
// with a store and a service of its own, as a second `disburse serve`
// would have (docs/api.md section 9: several replicas are safe).
type replica struct {
	store  *sqlstore.Store
	srv    *http.Server
	served chan error
	client *client
}

// startReplica serves the API a second time, on the bench's clock and with
// its operator token, and returns a client of it.
func startReplica(ctx context.Context, e *env) (*replica, error) {
	store, err := e.cfg.Open(ctx, e.cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		store.Close()
		return nil, err
	}
	svc, hooks := newService(store, e.clock)
	r := &replica{store: store, srv: newServer(svc, hooks, store, e.client.admin, e.cfg.BulkConcurrency), served: make(chan error, 1)}
	go func() { r.served <- r.srv.Serve(ln) }()
	r.client = newClient("http://"+ln.Addr().String(), e.client.admin)
	return r, nil
}

func (r *replica) close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := r.srv.Shutdown(ctx)
	if served := <-r.served; !errors.Is(served, http.ErrServerClosed) {
		err = errors.Join(err, served)
	}
	r.client.close()
	r.store.Close()
	return err
}
