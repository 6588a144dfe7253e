package bootsel

import (
	"sync"

	"github.com/rackboot/rackboot/engine/auth"
)

// cacheKey names everything a host's config.ign is made of: the
// infra-env's revision (any change to it — SSH key, proxy, override,
// selector — is a new revision), the pull secret's revision, the selected
// NMState configs and their revisions, the hostname and the signing key.
// Hosts with no per-host part share one entry per infra-env.
type cacheKey struct {
	infraEnv  string
	ieRev     uint64
	secretRev uint64
	nmstate   string
	hostname  string
	kid       string
	agent     string // the remote agent's URL and sha512 ("" for none)
}

// cache keeps built configs; it forgets everything when it reaches its
// limit, and entries of old revisions simply stop being asked for.
// Concurrent requests for a key being built wait for that one build, so a
// boot storm on a cold cache builds each config once.
type cache struct {
	mu       sync.Mutex
	limit    int
	m        map[cacheKey][]byte
	inflight map[cacheKey]*flight
}

// flight is one build in progress.
type flight struct {
	done chan struct{}
	val  []byte
	err  error
}

func newCache(limit int) *cache {
	return &cache{limit: limit, m: map[cacheKey][]byte{}, inflight: map[cacheKey]*flight{}}
}

// do returns the config of k, building it with build unless it is cached
// or already being built. A failed build is not cached.
func (c *cache) do(k cacheKey, build func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	if v, ok := c.m[k]; ok {
		c.mu.Unlock()
		return v, nil
	}
	if f, ok := c.inflight[k]; ok {
		c.mu.Unlock()
		<-f.done
		return f.val, f.err
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[k] = f
	c.mu.Unlock()

	f.val, f.err = build()
	c.mu.Lock()
	delete(c.inflight, k)
	if f.err == nil {
		if len(c.m) >= c.limit {
			clear(c.m)
		}
		c.m[k] = f.val
	}
	c.mu.Unlock()
	close(f.done)
	return f.val, f.err
}

// tokenCache hands out one agent token per infra-env and signing key, so a
// boot storm signs about once per infra-env rather than once per request;
// when concurrent misses both sign, the first token stored is the one every
// caller gets (ES256 signatures differ each time).
type tokenCache struct {
	keys *auth.KeyRing
	mu   sync.Mutex
	m    map[[2]string]string // {infra-env, kid} → token
}

func newTokenCache(keys *auth.KeyRing) *tokenCache {
	return &tokenCache{keys: keys, m: map[[2]string]string{}}
}

// get returns the agent token of infra-env id and the kid that signed it.
func (t *tokenCache) get(id string) (token, kid string, err error) {
	kid = t.keys.ActiveKID()
	k := [2]string{id, kid}
	t.mu.Lock()
	token, ok := t.m[k]
	t.mu.Unlock()
	if ok {
		return token, kid, nil
	}
	token, err = t.keys.Sign(auth.Claims{InfraEnvID: id, Subject: "agent"})
	if err != nil {
		return "", "", err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if first, ok := t.m[k]; ok { // a concurrent miss signed first: every caller gets that one
		return first, kid, nil
	}
	if len(t.m) >= 1024 {
		clear(t.m)
	}
	t.m[k] = token
	return token, kid, nil
}
