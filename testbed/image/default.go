package image

import "context"

// BuildDefault is Build into DefaultCacheDir, the cache the testbed's
// tests share.
func BuildDefault(ctx context.Context) (Artifacts, error) {
	cache, err := DefaultCacheDir()
	if err != nil {
		return Artifacts{}, err
	}
	return Build(ctx, cache)
}
