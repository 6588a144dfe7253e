package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/rackboot/rackboot/engine"
	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
	"github.com/rackboot/rackboot/engine/enginetest"
	"github.com/rackboot/rackboot/engine/hosts"
)

// Mounting the API next to other handlers, and running its monitor on
// the leader.
func Example() {
	store := enginetest.NewStore() // rackbootd: cluster.Open
	keys := auth.NewKeyRing()      // rackbootd: engine.LoadKeyRing (shared with the boot server)
	if _, err := keys.Generate(); err != nil {
		panic(err)
	}
	opts := api.Options{
		Store: store, AdminToken: "0123456789abcdef0123456789abcdef", Keys: keys,
		ServiceURL: "http://10.55.0.1:8090", BootURL: "http://10.55.0.1:8080",
		Log: slog.New(slog.DiscardHandler),
	}
	h, err := api.New(opts)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle(api.BasePath+"/", h)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	monitor, err := hosts.New(opts.HostOptions()) // the host domain, for the host monitor
	if err != nil {
		panic(err)
	}
	go engine.WhileLeader(ctx, store, func(ctx context.Context) { _ = monitor.Monitor(ctx, 10*time.Second, nil) })

	srv := httptest.NewServer(mux)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+api.BasePath+"/infra-envs",
		strings.NewReader(`{"name":"rack","pull_secret":"{\"auths\":{}}"}`))
	req.Header.Set("Authorization", "Bearer "+opts.AdminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	fmt.Println(resp.Status)
	// Output: 201 Created
}
