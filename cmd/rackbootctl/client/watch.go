package client

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"

	"github.com/rackboot/rackboot/engine/models"
)

// ErrNoWatch: the server answered a host watch with something other than
// a watch stream (an older server that ignores ?watch=true).
var ErrNoWatch = errors.New("the server does not stream host changes")

// Watch event types of the host watch stream.
const (
	WatchAdded    = models.WatchAdded
	WatchModified = models.WatchModified
	WatchDeleted  = models.WatchDeleted
)

// maxWatchLine bounds one line (one host) of a watch stream.
const maxWatchLine = 16 << 20

// WatchHosts follows GET /infra-envs/{id}/hosts?watch=true and calls fn
// with each event (every current host first, as ADDED) until ctx ends
// (nil), the server closes the stream (nil), fn fails, or the stream
// breaks. A server without the stream gives ErrNoWatch (when it answers
// with a plain list) or an *APIError (404 from a server that lacks the
// route, or for an infra-env that is gone).
func (c *Client) WatchHosts(ctx context.Context, infraEnvID string, fn func(WatchEvent) error) error {
	path := "/infra-envs/" + pathID(infraEnvID) + "/hosts"
	resp, err := c.stream(ctx, path, url.Values{"watch": {"true"}})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/x-ndjson" {
		return fmt.Errorf("%w (GET %s answered %q)", ErrNoWatch, BasePath+path, mt)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxWatchLine)
	for sc.Scan() {
		ev, err := ParseWatchEvent(sc.Bytes())
		if err != nil {
			return fmt.Errorf("GET %s: %w", BasePath+path, err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("GET %s: watch stream: %w", BasePath+path, scrub(err, c.token))
	}
	return nil
}

// stream is send for a long-lived GET: the client's timeout (meant for
// whole answers) does not apply, ctx bounds it instead.
func (c *Client) stream(ctx context.Context, path string, q url.Values) (*http.Response, error) {
	sc := *c
	hc := *c.http
	hc.Timeout = 0
	sc.http = &hc
	return sc.send(ctx, http.MethodGet, path, q, nil)
}

// ParseWatchEvent parses one line of a host watch stream: a known type
// and a host with an ID; anything else is an error matching ErrProtocol.
func ParseWatchEvent(line []byte) (WatchEvent, error) {
	var ev WatchEvent
	if err := json.Unmarshal(line, &ev); err != nil {
		return WatchEvent{}, fmt.Errorf("%w: bad watch event: %w", ErrProtocol, err)
	}
	switch {
	case ev.Type != WatchAdded && ev.Type != WatchModified && ev.Type != WatchDeleted:
		return WatchEvent{}, fmt.Errorf("%w: watch event of unknown type", ErrProtocol)
	case ev.Object == nil || ev.Object.ID == "":
		return WatchEvent{}, fmt.Errorf("%w: watch event without a host ID", ErrProtocol)
	}
	return ev, nil
}
