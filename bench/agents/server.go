package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rackboot/rackboot/engine/api"
	"github.com/rackboot/rackboot/engine/auth"
)

// Sentinel errors of the server side.
var (
	// ErrServer: the server could not be started or did not become ready.
	ErrServer = errors.New("agents: server")
	// ErrNoAPI: the rackbootd binary does not serve the engine API (yet).
	ErrNoAPI = errors.New("agents: rackbootd does not serve " + api.BasePath)
)

// Server kinds (-server).
const (
	kindAuto      = "auto"
	kindBinary    = "binary"
	kindInProcess = "inprocess"
	kindRack      = "rack" // rackbootd in testbed/ha's namespaces (-rack)
)

// server is a running server process under test.
type server struct {
	kind    string // kindBinary or kindInProcess
	cmd     *exec.Cmd
	done    chan struct{}
	base    string // http://127.0.0.1:port
	dataDir string
	token   string       // admin token
	http    *http.Client // nil: http.DefaultClient
	pprof   string       // the binary's server.pprof_listen as a URL ("": none)
}

// profBase is where the server serves /debug/pprof ("": nowhere).
func (s *server) profBase() string {
	if s.kind == kindInProcess {
		return s.base
	}
	return s.pprof
}

// client is the HTTP client that reaches the server.
func (s *server) client() *http.Client {
	if s.http != nil {
		return s.http
	}
	return http.DefaultClient
}

// pid is the server process's id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// startServer starts the server of kind in a fresh dataDir under work.
// serverOpts say which server to start and how.
type serverOpts struct {
	kind, bin, work string
	contention      bool   // in-process: profile blocking and mutex contention; binary: serve /debug/pprof (server.pprof_listen)
	nice            int    // run the server under nice(1) -n nice (0: not)
	extraTOML       string // appended to the binary's configuration
}

// startServer starts the server of o.kind in a fresh data directory
// under o.work.
func startServer(ctx context.Context, o serverOpts) (*server, error) {
	switch o.kind {
	case kindBinary:
		return startBinary(ctx, o, filepath.Join(o.work, "rackbootd"))
	case kindInProcess:
		return startInProcess(ctx, o, filepath.Join(o.work, "inprocess"))
	case kindAuto:
		s, err := startBinary(ctx, o, filepath.Join(o.work, "rackbootd"))
		if err == nil {
			return s, nil
		}
		fmt.Fprintf(os.Stderr, "%v; using -server %s\n", err, kindInProcess)
		return startInProcess(ctx, o, filepath.Join(o.work, "inprocess"))
	}
	return nil, fmt.Errorf("%w: unknown -server %q", ErrServer, o.kind)
}

// command is name with args, under nice(1) when asked.
func (o serverOpts) command(name string, args ...string) *exec.Cmd {
	if o.nice == 0 {
		return exec.Command(name, args...)
	}
	return exec.Command("nice", append([]string{"-n", strconv.Itoa(o.nice), name}, args...)...)
}

// startBinary runs bin with a loopback configuration (DHCP and TFTP off)
// and checks that it serves the API.
func startBinary(ctx context.Context, o serverOpts, dataDir string) (*server, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServer, err)
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dataDir, "rackbootd.toml")
	pprofLine, pprofBase := "", ""
	if o.contention {
		pport, err := freePort()
		if err != nil {
			return nil, err
		}
		pprofLine = fmt.Sprintf("pprof_listen = \"127.0.0.1:%d\"\n", pport)
		pprofBase = fmt.Sprintf("http://127.0.0.1:%d", pport)
	}
	text := fmt.Sprintf("[server]\ndata_dir = %q\nadvertise = \"127.0.0.1\"\nhttp_listen = \"127.0.0.1:%d\"\n%s\n[tftp]\nenabled = false\n",
		dataDir, port, pprofLine) + o.extraTOML
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServer, err)
	}
	s := &server{kind: kindBinary, dataDir: dataDir, base: fmt.Sprintf("http://127.0.0.1:%d", port), pprof: pprofBase}
	if err := s.start(o.command(o.bin, "-config", conf), "rackbootd.log"); err != nil {
		return nil, err
	}
	if err := s.ready(ctx, 5*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	if err := s.checkAPI(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// startInProcess re-executes this program as the in-process server.
func startInProcess(ctx context.Context, o serverOpts, dataDir string) (*server, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServer, err)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServer, err)
	}
	s := &server{kind: kindInProcess, dataDir: dataDir}
	args := []string{"-serve-data-dir", dataDir}
	if o.contention {
		args = append(args, "contention")
	}
	if err := s.start(o.command(self, args...), "stderr.log"); err != nil {
		return nil, err
	}
	if err := s.waitFor(ctx, 60*time.Second, func() bool { return readAddr(dataDir) != "" }); err != nil {
		s.stop()
		return nil, err
	}
	s.base = "http://" + readAddr(dataDir)
	if err := s.ready(ctx, 60*time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// start starts cmd with its output in dataDir/logName; the process is
// killed if this program dies.
func (s *server) start(cmd *exec.Cmd, logName string) error {
	logf, err := os.Create(filepath.Join(s.dataDir, logName))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrServer, err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%w: start %s: %w", ErrServer, cmd.Path, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	return nil
}

// waitFor polls cond until it holds, the process exits or limit passes.
func (s *server) waitFor(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		select {
		case <-s.done:
			return fmt.Errorf("%w: exited during start (see %s)", ErrServer, s.dataDir)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: not ready after %s (see %s)", ErrServer, limit, s.dataDir)
		}
	}
	return nil
}

// ready waits for /healthz, then up to tokenWait for the admin token file
// (rackbootd creates it when it serves the API).
func (s *server) ready(ctx context.Context, tokenWait time.Duration) error {
	err := s.waitFor(ctx, 60*time.Second, func() bool {
		resp, err := http.Get(s.base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if err != nil {
		return err
	}
	path := filepath.Join(s.dataDir, auth.AdminTokenFile)
	if err := s.waitFor(ctx, tokenWait, func() bool { return fileExists(path) }); err != nil {
		return fmt.Errorf("%w (no %s)", ErrNoAPI, auth.AdminTokenFile)
	}
	tok, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: admin token: %w", ErrServer, err)
	}
	s.token = strings.TrimSpace(string(tok))
	return nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// checkAPI asks for the infra-env list with the admin token.
func (s *server) checkAPI(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+api.BasePath+"/infra-envs", nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrServer, err)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrServer, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w (GET /infra-envs: %d)", ErrNoAPI, resp.StatusCode)
	}
	return nil
}

// stop sends SIGTERM, then SIGKILL after 5 s, and waits for the exit.
func (s *server) stop() {
	if s == nil || s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
		return
	case <-time.After(5 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-s.done
}

// metrics reads the server's /metrics as name → value (labels dropped
// with their samples: only unlabelled samples are kept).
func (s *server) metrics(ctx context.Context) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/metrics", nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrServer, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: metrics: %w", ErrServer, err)
	}
	defer resp.Body.Close()
	return parseMetrics(io.LimitReader(resp.Body, 1<<20))
}

// parseMetrics reads unlabelled samples of the Prometheus text format.
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || strings.Contains(line, "{") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		out[f[0]] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: metrics: %w", ErrServer, err)
	}
	return out, nil
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrServer, err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
