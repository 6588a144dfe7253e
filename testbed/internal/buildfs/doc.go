// Package buildfs holds the file work the testbed's image builders
// (testbed/image, testbed/osimage, testbed/coreosimage) share: hashing host
// files into cache keys and checksums, the cache directory's flock, the
// shared libraries a host program links (ldd), and writing a reproducible
// gzip newc cpio.
//
// Its errors are plain and name what failed; each builder wraps them with
// its own sentinel (osimage.ErrBuild, coreosimage.ErrBuild, image.ErrInitrd),
// so callers keep matching those with errors.Is.
package buildfs
