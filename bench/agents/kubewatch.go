package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// tableAccept is what `kubectl get` asks for (the Table form, then JSON).
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"

// kubectlRun is one timed `kubectl get agents -A`.
type kubectlRun struct {
	Wall     time.Duration
	Stdout   int           // bytes kubectl printed
	Lines    int           // rows printed (header included)
	Requests int           // GETs of the Agent list kubectl made (-v=6 run)
	Server   time.Duration // their time as kubectl's -v=6 log gives it
	// Throttled is how long kubectl waited, by its -v=6 log, for its own
	// client-side rate limiter (client-go's default 5 requests per
	// second after a burst of 10) between its list requests.
	Throttled time.Duration
}

// v6Line is kubectl -v=6's line for one request; v6Wait its line for a
// wait of its client-side rate limiter.
var (
	v6Line = regexp.MustCompile(`GET https://[^ ]*/agents[^ ]* 200 OK in (\d+) milliseconds`)
	v6Wait = regexp.MustCompile(`Waited for ([0-9.]+m?s) due to client-side throttling`)
)

// timeKubectl runs `kubectl get agents -A` (with args) runs times and
// once more with -v=6 to see its requests and their time.
func (k *kube) timeKubectl(ctx context.Context, runs int, args ...string) ([]kubectlRun, kubectlRun, error) {
	get := append([]string{"get", "agents", "-A"}, args...)
	var out []kubectlRun
	for i := 0; i < runs; i++ {
		start := time.Now()
		stdout, _, err := k.run(ctx, get...)
		if err != nil {
			return out, kubectlRun{}, err
		}
		out = append(out, kubectlRun{Wall: time.Since(start), Stdout: len(stdout), Lines: bytes.Count(stdout, []byte("\n"))})
	}
	start := time.Now()
	stdout, stderr, err := k.run(ctx, append(get, "-v=6")...)
	v := kubectlRun{Wall: time.Since(start), Stdout: len(stdout), Lines: bytes.Count(stdout, []byte("\n"))}
	v.Requests, v.Server, v.Throttled = parseV6(stderr)
	return out, v, err
}

// parseV6 reads kubectl -v=6's log: its Agent list requests, their time
// and its rate limiter's waits.
func parseV6(log []byte) (requests int, server, throttled time.Duration) {
	for _, m := range v6Line.FindAllSubmatch(log, -1) {
		ms, _ := strconv.Atoi(string(m[1]))
		requests++
		server += time.Duration(ms) * time.Millisecond
	}
	for _, m := range v6Wait.FindAllSubmatch(log, -1) {
		d, _ := time.ParseDuration(string(m[1]))
		throttled += d
	}
	return requests, server, throttled
}

// listBytes fetches the Agent list as kubectl does (Table, chunks of
// limit=500 followed by continue) and returns the bytes of the
// responses, their count and the wall time.
func (k *kube) listBytes(ctx context.Context) (int, int, time.Duration, error) {
	total, n, cont := 0, 0, ""
	start := time.Now()
	for {
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		b, err := k.get(ctx, agentsPath+"?"+q.Encode(), tableAccept)
		if err != nil {
			return total, n, time.Since(start), err
		}
		total, n = total+len(b), n+1
		var meta struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(b, &meta)
		if cont = meta.Metadata.Continue; cont == "" || n > 100 {
			return total, n, time.Since(start), nil
		}
	}
}

// seqLabel is the label each measured write sets on an Agent.
const seqLabel = "bench.rackboot.io/seq"

// watchResult is the delays every watcher saw, per write.
type watchResult struct {
	Watchers, Connected int
	Writes, WriteErrors int
	// FromSend is the delay from sending the write to each watcher's
	// event; FromAck from the write's 200 (the command committed and
	// applied on the appliance) to the event (negative when the event
	// came first). Missing counts events never received.
	FromSend, FromAck []time.Duration
	WriteRTT          []time.Duration
	Missing           int
	Dur               time.Duration
	// Retries: watches started again after failing before their headers;
	// Other: events of changes other than the bench's writes (the
	// controllers' own), over all watchers.
	Retries, Other int
}

// watchEvent is the part of a watch event the watchers read.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Labels map[string]string `json:"labels"`
		} `json:"metadata"`
	} `json:"object"`
}

// watchDelays starts n watchers of every Agent from rv, each on its own
// HTTPS connection as kubectl get -w (one per watcher), then patches
// writes Agents (a label, JSON merge patch, one write every gap) and
// times each write's event at every watcher.
func (k *kube) watchDelays(ctx context.Context, n int, rv string, names []string, writes int, gap time.Duration) (watchResult, error) {
	res := watchResult{Watchers: n, Writes: writes}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type seen struct {
		seq int
		at  time.Time
	}
	events := make(chan seen, 4096)
	var ready sync.WaitGroup
	var mu sync.Mutex
	var werr error
	ready.Add(n)
	var retries, other atomic.Int64
	for i := 0; i < n; i++ {
		connected := make(chan struct{})
		go func() {
			once := sync.OnceFunc(func() { close(connected); ready.Done() })
			defer once()
			// A watch that fails before its headers is started again, as
			// kubectl's reflector does (a busy server may drop a TLS
			// handshake past its ReadHeaderTimeout).
			first := map[int]bool{} // a later change of a written Agent still carries its label
			for attempt := 0; ; attempt++ {
				err := k.watch(ctx, rv, once, func(seq int) {
					if seq < 0 || first[seq] {
						other.Add(1)
						return
					}
					first[seq] = true
					events <- seen{seq, time.Now()}
				})
				select {
				case <-connected:
				default:
					if attempt < 20 && ctx.Err() == nil {
						retries.Add(1)
						select { // back off as kubectl's reflector does
						case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
						case <-ctx.Done():
						}
						continue
					}
				}
				if err != nil && ctx.Err() == nil {
					mu.Lock()
					werr = err
					mu.Unlock()
				}
				return
			}
		}()
		// Watchers connect ten at a time, as clients come up, not in one burst.
		if i%10 == 9 {
			select {
			case <-connected:
			case <-ctx.Done():
				return res, ctx.Err()
			}
		}
	}
	ready.Wait()
	res.Retries = int(retries.Load())
	mu.Lock()
	if werr != nil {
		mu.Unlock()
		return res, werr
	}
	if ctx.Err() != nil {
		mu.Unlock()
		return res, fmt.Errorf("%w: the watchers did not all connect", ctx.Err())
	}
	mu.Unlock()
	res.Connected = n
	sent := make([]time.Time, writes)
	acked := make([]time.Time, writes)
	got := make([]int, writes)
	var all []seen
	go func() {
		for e := range events {
			if e.seq < 0 || e.seq >= writes {
				continue
			}
			mu.Lock()
			got[e.seq]++
			all = append(all, e)
			mu.Unlock()
		}
	}()
	start := time.Now()
	for i := 0; i < writes; i++ {
		mu.Lock()
		sent[i] = time.Now()
		mu.Unlock()
		err := k.patchLabel(ctx, names[i%len(names)], i)
		mu.Lock()
		acked[i] = time.Now()
		res.WriteRTT = append(res.WriteRTT, acked[i].Sub(sent[i]))
		mu.Unlock()
		if err != nil {
			res.WriteErrors++
		}
		select {
		case <-ctx.Done():
			res.Retries = int(retries.Load())
			return res, ctx.Err()
		case <-time.After(gap):
		}
	}
	// Every event of the last write has arrived, or a second has passed.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		done := got[writes-1] >= n
		mu.Unlock()
		if done {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	res.Dur = time.Since(start)
	res.Retries, res.Other = int(retries.Load()), int(other.Load())
	cancel()
	mu.Lock()
	defer mu.Unlock()
	for i := range got {
		res.Missing += max(0, n-got[i])
	}
	for _, e := range all {
		res.FromSend = append(res.FromSend, e.at.Sub(sent[e.seq]))
		res.FromAck = append(res.FromAck, e.at.Sub(acked[e.seq]))
	}
	return res, nil
}

// watch streams Agent events from rv, calls connected once the response
// headers arrive, and hands each event's seq label to seen.
func (k *kube) watch(ctx context.Context, rv string, connected func(), seen func(int)) error {
	q := url.Values{"watch": {"true"}, "resourceVersion": {rv}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+agentsPath+"?"+q.Encode(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Accept", "application/json")
	// One connection per watcher, as each kubectl has its own.
	t := k.http.Transport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	resp, err := (&http.Client{Transport: t}).Do(req)
	if err != nil {
		return fmt.Errorf("%w: watch: %w", ErrKube, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: watch: %s", ErrKube, resp.Status)
	}
	connected()
	dec := json.NewDecoder(bufio.NewReaderSize(resp.Body, 64<<10))
	for {
		var e watchEvent
		if err := dec.Decode(&e); err != nil {
			return err
		}
		seq := -1
		if s, ok := e.Object.Metadata.Labels[seqLabel]; ok && e.Type == "MODIFIED" {
			if n, err := strconv.Atoi(s); err == nil {
				seq = n
			}
		}
		seen(seq)
	}
}

// patchLabel sets seqLabel=seq on Agent name (JSON merge patch, as
// `kubectl patch --type merge` sends it).
func (k *kube) patchLabel(ctx context.Context, name string, seq int) error {
	body := fmt.Sprintf(`{"metadata":{"labels":{%q:"%d"}}}`, seqLabel, seq)
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, k.base+"/apis/agent-install.openshift.io/v1beta1/namespaces/"+kubeNS+"/agents/"+name, bytes.NewReader([]byte(body)))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := k.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: PATCH agent %s: %s: %.200s", ErrKube, name, resp.Status, b.Bytes())
	}
	return nil
}
