package redfish

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// downloadClient fetches images: no proxy from the environment, http only,
// also after redirects.
func downloadClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, ResponseHeaderTimeout: 30 * time.Second},
		Timeout:   30 * time.Minute,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if req.URL.Scheme != "http" || len(via) >= 5 {
				return fmt.Errorf("%w: redirect to %s refused", ErrMedia, req.URL.Scheme)
			}
			return nil
		},
	}
}

// checkImageURL accepts only absolute http URLs.
func checkImageURL(image string) error {
	u, err := url.Parse(image)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return fmt.Errorf("%w: Image must be an http:// URL", ErrBadRequest)
	}
	return nil
}

// Insert downloads image into the media directory and puts it in system
// id's CD slot, replacing what was there; a running machine gets it at once
// through QMP, one that is off at its next power-on.
func (s *Service) Insert(ctx context.Context, id, image string) error {
	sys, err := s.system(id)
	if err != nil {
		return err
	}
	if err := checkImageURL(image); err != nil {
		return err
	}
	// Download without the lock, so that the System stays readable.
	sys.mu.Lock()
	sys.seq++
	path := filepath.Join(s.cfg.MediaDir, fmt.Sprintf("%s-cd-%d.iso", id, sys.seq))
	sys.mu.Unlock()
	if err := s.download(ctx, image, path); err != nil {
		return err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if sys.Machine.Running(ctx) {
		if err := sys.Machine.ChangeMedium(ctx, path); err != nil {
			removeFile(path)
			return fmt.Errorf("%w: insert: %w", ErrMachine, err)
		}
	}
	removeFile(sys.media.path)
	sys.media = Media{Image: image, Inserted: true, path: path}
	// The URL's path may be a capability (an infra-env token): log the host.
	u, _ := url.Parse(image)
	s.log.Info("virtual media inserted", "system", id, "mac", sys.MAC, "image_host", u.Host)
	return nil
}

// Eject empties system id's CD slot; an empty slot stays empty.
func (s *Service) Eject(ctx context.Context, id string) error {
	sys, err := s.system(id)
	if err != nil {
		return err
	}
	sys.mu.Lock()
	defer sys.mu.Unlock()
	if !sys.media.Inserted {
		return nil
	}
	if sys.Machine.Running(ctx) {
		if err := sys.Machine.ChangeMedium(ctx, ""); err != nil {
			return fmt.Errorf("%w: eject: %w", ErrMachine, err)
		}
	}
	removeFile(sys.media.path)
	sys.media = Media{}
	s.log.Info("virtual media ejected", "system", id, "mac", sys.MAC)
	return nil
}

// download writes image to path, at most MaxImage bytes; a failed or
// oversized download leaves no file.
func (s *Service) download(ctx context.Context, image, path string) (err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, image, nil)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	resp, err := s.cfg.Client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: download: %w", ErrMedia, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: download: HTTP %d", ErrMedia, resp.StatusCode)
	}
	if resp.ContentLength > s.cfg.MaxImage {
		return fmt.Errorf("%w: image is %d bytes, more than %d", ErrMedia, resp.ContentLength, s.cfg.MaxImage)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrMedia, err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("%w: %w", ErrMedia, cerr)
		}
		if err != nil {
			removeFile(path)
		}
	}()
	n, err := io.Copy(f, io.LimitReader(resp.Body, s.cfg.MaxImage+1))
	switch {
	case err != nil:
		return fmt.Errorf("%w: download: %w", ErrMedia, err)
	case n > s.cfg.MaxImage:
		return fmt.Errorf("%w: image is more than %d bytes", ErrMedia, s.cfg.MaxImage)
	case n == 0:
		return fmt.Errorf("%w: %w", ErrMedia, errEmptyImage)
	}
	return nil
}

var errEmptyImage = errors.New("the image is empty")
