// Package initrd composes a host's initrd: the profile's base initrd, read
// from disk on every request, followed by a small appendix built in memory —
// a gzip'd newc cpio archive holding config.ign at its root. The kernel
// unpacks concatenated archives in order, so appending is enough. The result
// is an io.ReaderAt over the file and the appendix, never a copy of the base.
package initrd
