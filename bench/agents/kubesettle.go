package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// settleQuiet is how long no Agent may change for the Agents to count as
// settled.
const settleQuiet = 3 * time.Second

// waitSettled watches every Agent until none changed for settleQuiet (the
// host monitor and the acm controller finish what the registration storm
// started: install disks picked, validations, statuses) or until limit,
// and returns how long it waited, how many changes it saw and whether
// they settled. The list and watch are measured on a steady server, as
// the goals mean; the settling itself is reported.
func (k *kube) waitSettled(ctx context.Context, limit time.Duration) (time.Duration, int, bool, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	rv, err := k.listRV(ctx)
	if err != nil {
		return 0, 0, false, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.base+agentsPath+"?watch=true&resourceVersion="+rv, nil)
	if err != nil {
		return 0, 0, false, err
	}
	req.Header.Set("Authorization", "Bearer "+k.token)
	resp, err := k.http.Do(req)
	if err != nil {
		return 0, 0, false, fmt.Errorf("%w: settle watch: %w", ErrKube, err)
	}
	defer resp.Body.Close()
	lines := make(chan struct{}, 1024)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- struct{}{}
		}
		close(lines)
	}()
	n := 0
	quiet := time.NewTimer(settleQuiet)
	defer quiet.Stop()
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				return time.Since(start), n, false, nil
			}
			n++
			quiet.Reset(settleQuiet)
		case <-quiet.C:
			return time.Since(start), n, true, nil
		case <-ctx.Done():
			return time.Since(start), n, false, nil
		}
	}
}

// listRV is the resourceVersion of a one-Agent list: the current index.
func (k *kube) listRV(ctx context.Context) (string, error) {
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	b, err := k.get(ctx, agentsPath+"?limit=1", "application/json")
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(b, &l); err != nil || l.Metadata.ResourceVersion == "" {
		return "", fmt.Errorf("%w: no resourceVersion in a list: %v", ErrKube, err)
	}
	return l.Metadata.ResourceVersion, nil
}
