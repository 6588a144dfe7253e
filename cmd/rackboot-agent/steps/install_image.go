package steps

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// imageBlock is the unit of reading and writing the disk image.
const imageBlock = 1 << 20

var errStalled = errors.New("no data received")

// writeImage streams the disk image to the device, resuming a broken
// download with Range, and returns its sha256 (hex). The device is synced.
func (in *installer) writeImage(ctx context.Context) (string, error) {
	s := &imageStream{in: in, client: in.deps.imageHTTP(), hash: sha256.New(), total: -1,
		buf: make([]byte, imageBlock)}
	if err := in.percent(ctx, 0); err != nil {
		return "", err
	}
	failures := 0
	for {
		before := s.got
		err := s.fetch(ctx)
		if err == nil {
			break
		}
		if isFinal(err) || ctx.Err() != nil {
			return "", s.finish(err)
		}
		if s.got > before {
			failures = 0 // progress: resume at once
		} else {
			failures++
		}
		if failures > imageRetries {
			return "", s.finish(fail(ErrImage, err, "downloading the disk image failed %d times in a row", failures))
		}
		in.log.Warn("disk image download interrupted; resuming", "at_byte", s.got, "err", err)
		if err := in.wait(ctx, failures); err != nil {
			return "", s.finish(err)
		}
	}
	if err := s.finish(nil); err != nil {
		return "", err
	}
	if err := in.dev.Sync(); err != nil {
		return "", fail(ErrDevice, err, "syncing boot device %s", in.args.BootDevice)
	}
	if err := in.percent(ctx, 100); err != nil {
		return "", err
	}
	return hexSum(s.hash), nil
}

// imageStream is the state of one disk image download across attempts.
type imageStream struct {
	in     *installer
	client *http.Client
	hash   hash.Hash
	total  int64 // the image's length, -1 while unknown
	etag   string
	buf    []byte
	got    int64    // bytes of the served file received (written, for a raw image)
	dec    *decoder // the decompressor of a compressed image, once known
}

// fetch makes one attempt: it requests the rest of the image and copies
// it to the device. A final failure must not be retried.
func (s *imageStream) fetch(ctx context.Context) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	resp, err := s.request(ctx)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if err := s.accept(resp); err != nil {
		return err
	}
	stall := s.in.deps.ImageStallTimeout
	if stall <= 0 {
		stall = defaultStallTimeout
	}
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	for {
		n, rerr := fill(resp.Body, s.buf)
		if n > 0 {
			timer.Reset(stall)
			if err := s.write(ctx, s.buf[:n]); err != nil {
				return err
			}
		}
		switch {
		case rerr == io.EOF && s.total >= 0 && s.got < s.total:
			return fail(ErrImage, nil, "connection closed at byte %d of %d", s.got, s.total)
		case rerr == io.EOF:
			return nil
		case rerr != nil && errors.Is(context.Cause(ctx), errStalled):
			return fail(ErrImage, errStalled, "disk image download stalled at byte %d", s.got)
		case rerr != nil:
			return fail(ErrImage, unwrapURLError(rerr), "disk image download broke at byte %d", s.got)
		}
	}
}

func (s *imageStream) request(ctx context.Context) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.in.args.ImageURL, nil)
	if err != nil {
		return nil, final(ErrImage, nil, "image_url %s cannot be requested", safeURL(s.in.args.ImageURL))
	}
	if s.got > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", s.got))
		if s.etag != "" && !strings.HasPrefix(s.etag, "W/") {
			req.Header.Set("If-Range", s.etag)
		}
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fail(ErrImage, unwrapURLError(err), "requesting the disk image from %s", safeURL(s.in.args.ImageURL))
	}
	return resp, nil
}

// accept checks an answer and learns the image's length from it.
func (s *imageStream) accept(resp *http.Response) error {
	code := resp.StatusCode
	switch {
	case code == http.StatusOK:
		if s.got > 0 && s.dec != nil {
			return final(ErrImage, nil, "image server restarted the compressed disk image from the beginning at byte %d", s.got)
		}
		if s.got > 0 {
			s.in.log.Warn("image server restarted the download from the beginning", "at_byte", s.got)
			s.in.written, s.got = 0, 0
			s.hash.Reset()
		}
		s.etag = resp.Header.Get("ETag")
		return s.learnTotal(resp.ContentLength)
	case code == http.StatusPartialContent && s.got > 0:
		start, total, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err != nil || start != s.got {
			return final(ErrImage, nil, "image server answered Range %d- with Content-Range %q", s.got, resp.Header.Get("Content-Range"))
		}
		return s.learnTotal(total)
	case code >= 500 || code == http.StatusTooManyRequests:
		return fail(ErrImage, nil, "image server answered %d %s", code, http.StatusText(code))
	}
	return final(ErrImage, nil, "image server answered %d %s for %s", code, http.StatusText(code), safeURL(s.in.args.ImageURL))
}

func (s *imageStream) learnTotal(total int64) error {
	if total < 0 {
		return nil
	}
	if want := s.in.args.ImageSize; want > 0 && total != want {
		return final(ErrImage, nil, "the server's disk image is %d bytes, the install step says %d", total, want)
	}
	if total > s.in.devSize {
		return final(ErrDevice, nil, "disk image is %d bytes, larger than boot device %s (%d bytes)", total, s.in.args.BootDevice, s.in.devSize)
	}
	s.total, s.in.total = total, total
	return nil
}

// write puts one block on the device at the current offset, or hands it
// to the decompressor of a compressed image (recognised by its first bytes).
func (s *imageStream) write(ctx context.Context, b []byte) error {
	if s.got == 0 && s.dec == nil {
		if kind := compression(b); kind != "" {
			s.in.log.Info("disk image is compressed; decompressing while writing", "compression", kind)
			s.dec = s.in.startDecoder(kind)
		}
	}
	if s.dec != nil {
		return s.writeCompressed(ctx, b)
	}
	in := s.in
	limit := in.devSize
	if s.total >= 0 {
		limit = s.total
	}
	if in.written+int64(len(b)) > limit {
		return final(ErrDevice, nil, "disk image is larger than %d bytes (boot device %s or the announced length)", limit, in.args.BootDevice)
	}
	in.touched = true
	if _, err := in.dev.WriteAt(b, in.written); err != nil {
		return final(ErrDevice, err, "writing boot device %s", in.args.BootDevice)
	}
	s.hash.Write(b)
	in.written += int64(len(b))
	s.got = in.written
	total := s.total
	if total < 0 {
		total = in.args.ImageSize
	}
	if total > 0 && in.written < total {
		return in.percent(ctx, int(in.written*100/total))
	}
	return nil
}

// writeCompressed hands a block of a compressed image to its
// decompressor; the percentage is of the compressed bytes.
func (s *imageStream) writeCompressed(ctx context.Context, b []byte) error {
	if s.total >= 0 && s.got+int64(len(b)) > s.total {
		return final(ErrImage, nil, "the server sent more than the %d bytes it announced", s.total)
	}
	if _, err := s.dec.Write(b); err != nil {
		return err // the decompressor's failure
	}
	s.hash.Write(b)
	s.got += int64(len(b))
	total := s.total
	if total < 0 {
		total = s.in.args.ImageSize
	}
	if total > 0 && s.got < total {
		return s.in.percent(ctx, int(s.got*100/total))
	}
	return nil
}

// finish ends a compressed image's decompression (cause: the download
// failed) and returns cause or the decompressor's error.
func (s *imageStream) finish(cause error) error {
	if s.dec == nil {
		return cause
	}
	err := s.dec.finish(cause)
	s.dec = nil
	return err
}

// fill reads until b is full or r fails, returning r's error as is.
func fill(r io.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// parseContentRange reads "bytes start-end/total" (total may be "*": -1).
func parseContentRange(v string) (start, total int64, err error) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	rng, tot, ok2 := strings.Cut(rest, "/")
	first, _, ok3 := strings.Cut(rng, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, fmt.Errorf("%w: Content-Range %q", ErrParse, v)
	}
	if start, err = strconv.ParseInt(first, 10, 64); err != nil || start < 0 {
		return 0, 0, fmt.Errorf("%w: Content-Range %q", ErrParse, v)
	}
	if tot == "*" {
		return start, -1, nil
	}
	if total, err = strconv.ParseInt(tot, 10, 64); err != nil || total <= start {
		return 0, 0, fmt.Errorf("%w: Content-Range %q", ErrParse, v)
	}
	return start, total, nil
}

// unwrapURLError drops the URL (which may carry a query token) from a
// client error.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
