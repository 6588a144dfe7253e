package metrics

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// httpMetrics are the HTTP server's request metrics, labelled by the
// ServeMux pattern that served the request, never by its raw path.
type httpMetrics struct {
	requests  *prometheus.CounterVec
	duration  *prometheus.HistogramVec
	bytes     *prometheus.CounterVec
	writeErrs *prometheus.CounterVec
	inFlight  prometheus.Gauge
}

// durationBuckets reach minutes: a kernel or initrd download is one
// request.
func durationBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300}
}

func newHTTPMetrics() *httpMetrics {
	return &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from a request's headers to the end of its response (a whole download), by route pattern and method.",
			Buckets: durationBuckets(),
		}, []string{"route", "method"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "response_bytes_total",
			Help: "Response body bytes written, by route pattern.",
		}, []string{"route"}),
		writeErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "write_errors_total",
			Help: "Responses cut short because writing to the client failed (a download broken off), by route pattern.",
		}, []string{"route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_in_flight",
			Help: "HTTP requests being served now (downloads and watch streams included).",
		}),
	}
}

func (m *httpMetrics) register(reg prometheus.Registerer) {
	reg.MustRegister(m.requests, m.duration, m.bytes, m.writeErrs, m.inFlight)
}

// Instrument counts the requests next serves. next must route with
// http.ServeMux (or handlers that pass the request on unchanged) so that
// the request's Pattern names the route once it is served.
func (r *Registry) Instrument(next http.Handler) http.Handler {
	m := r.http
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		m.inFlight.Inc()
		cw := &countingWriter{ResponseWriter: w}
		served := false
		defer func() {
			if !served { // the handler panicked (http.ErrAbortHandler cuts a download)
				cw.failed = true
			}
			m.done(req, cw, start)
		}()
		next.ServeHTTP(cw, req)
		served = true
	})
}

// done records a finished request. The in-flight gauge drops first, so
// that once a request is counted it is no longer in flight.
func (m *httpMetrics) done(req *http.Request, cw *countingWriter, start time.Time) {
	m.inFlight.Dec()
	rt, method := route(req.Pattern), methodLabel(req.Method)
	if watching(req) {
		rt += "?watch" // a stream, whose duration is not a latency
	}
	code := cw.code
	if code == 0 {
		code = http.StatusOK
	}
	m.duration.WithLabelValues(rt, method).Observe(time.Since(start).Seconds())
	m.bytes.WithLabelValues(rt).Add(float64(cw.n))
	errs := m.writeErrs.WithLabelValues(rt) // 0 until the first, for rate()
	if cw.failed {
		errs.Inc()
	}
	// Last: a request seen in requests_total is in every other family.
	m.requests.WithLabelValues(rt, method, strconv.Itoa(code)).Inc()
}

// route is a ServeMux pattern without its method ("GET /boot/{mac}/kernel"
// is "/boot/{mac}/kernel"); "unmatched" when no pattern served it.
func route(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	if _, p, ok := strings.Cut(pattern, " "); ok {
		return strings.TrimSpace(p)
	}
	return pattern
}

// watching reports whether req asks for a watch stream (?watch=true on
// the API's list routes).
func watching(req *http.Request) bool {
	if !strings.Contains(req.URL.RawQuery, "watch") {
		return false
	}
	switch req.URL.Query().Get("watch") {
	case "", "0", "false":
		return false
	}
	return true
}

// methodLabel keeps the label's values few: a client's invented method is
// OTHER.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return m
	}
	return "OTHER"
}

// countingWriter records the status and the body bytes written. It
// unwraps for http.ResponseController (flushing watch streams) and keeps
// io.ReaderFrom, so file downloads still use sendfile.
type countingWriter struct {
	http.ResponseWriter
	code   int
	n      int64
	failed bool
}

func (c *countingWriter) WriteHeader(code int) {
	if c.code == 0 && code >= 200 {
		c.code = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	c.failed = c.failed || err != nil
	return n, err
}

func (c *countingWriter) ReadFrom(src io.Reader) (int64, error) {
	var (
		n   int64
		err error
	)
	if rf, ok := c.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{c.ResponseWriter}, src)
	}
	c.n += n
	c.failed = c.failed || err != nil
	return n, err
}

// Flush keeps http.Flusher for handlers that assert it.
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *countingWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// writerOnly hides ReadFrom so that io.Copy does not loop back.
type writerOnly struct{ io.Writer }
