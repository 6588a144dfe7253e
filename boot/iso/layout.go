package iso

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Errors about the embed areas.
var (
	ErrNoEmbedArea = errors.New("iso: no Ignition embed area")
	ErrBadKargs    = errors.New("iso: bad kernel argument areas")
)

// Paths inside a live ISO.
const (
	IgnInfoPath      = "/coreos/igninfo.json"
	DefaultEmbedPath = "/images/ignition.img"
	KargsInfoPath    = "/coreos/kargs.json"
)

const (
	maxInfoSize     = 64 << 10 // igninfo.json, kargs.json
	maxEmbedArea    = 64 << 20 // held in memory per request
	maxKargsArea    = 2048     // upstream's bound too
	maxKargsRegions = 16
)

// Area is a byte range of the image.
type Area struct {
	Offset int64
	Length int64
}

// KargsRegion is one copy of the kernel arguments inside a bootloader
// config: the arguments, then End, then Pad up to the area size.
type KargsRegion struct {
	Area
	Pad byte
	End byte
}

// Kargs describes the kernel argument areas of kargs.json.
type Kargs struct {
	Default string // the arguments the ISO was built with
	Size    int    // every region's length
	Regions []KargsRegion
}

// Layout is where a base ISO can be customised.
type Layout struct {
	Ignition Area
	Kargs    *Kargs // nil when the ISO has no kargs.json
}

type ignInfo struct {
	File   string `json:"file"`
	Offset *int64 `json:"offset"`
	Length *int64 `json:"length"`
}

type kargsInfo struct {
	Default string `json:"default"`
	Size    int    `json:"size"`
	Files   []struct {
		Path   string  `json:"path"`
		Offset int64   `json:"offset"`
		Pad    *string `json:"pad"`
		End    *string `json:"end"`
	} `json:"files"`
}

// Inspect finds the Ignition embed area and the kernel argument areas of
// the ISO image r of the given size.
func Inspect(r io.ReaderAt, size int64) (Layout, error) {
	v, err := readVolume(r, size)
	if err != nil {
		return Layout{}, err
	}
	ign, err := v.ignitionArea(r)
	if err != nil {
		return Layout{}, err
	}
	kargs, err := v.kargsAreas(r)
	if err != nil {
		return Layout{}, err
	}
	return Layout{Ignition: ign, Kargs: kargs}, nil
}

func (v volume) ignitionArea(r io.ReaderAt) (Area, error) {
	info := ignInfo{File: DefaultEmbedPath}
	rec, err := v.lookup(r, IgnInfoPath)
	switch {
	case err == nil:
		if err := v.readJSON(r, rec, &info); err != nil {
			return Area{}, fmt.Errorf("%w: %s: %w", ErrNoEmbedArea, IgnInfoPath, err)
		}
	case !errors.Is(err, ErrNotFound):
		return Area{}, err
	}
	f, err := v.lookup(r, info.File)
	if err != nil {
		return Area{}, fmt.Errorf("%w: %w", ErrNoEmbedArea, err)
	}
	if f.Dir {
		return Area{}, fmt.Errorf("%w: %q is a directory", ErrNoEmbedArea, info.File)
	}
	a := Area{Offset: f.Offset, Length: f.Size}
	if info.Offset != nil {
		if *info.Offset < 0 || *info.Offset > f.Size {
			return Area{}, fmt.Errorf("%w: offset %d outside %q (%d bytes)", ErrNoEmbedArea, *info.Offset, info.File, f.Size)
		}
		a.Offset, a.Length = f.Offset+*info.Offset, f.Size-*info.Offset
	}
	if info.Length != nil {
		if *info.Length < 0 || *info.Length > a.Length {
			return Area{}, fmt.Errorf("%w: length %d beyond the end of %q", ErrNoEmbedArea, *info.Length, info.File)
		}
		a.Length = *info.Length
	}
	return a, v.checkArea(a, maxEmbedArea)
}

func (v volume) checkArea(a Area, limit int64) error {
	switch {
	case a.Length <= 0:
		return fmt.Errorf("%w: empty area at byte %d", ErrNoEmbedArea, a.Offset)
	case a.Length > limit:
		return fmt.Errorf("%w: area of %d bytes (limit %d)", ErrNoEmbedArea, a.Length, limit)
	case a.Offset+a.Length > v.size:
		return fmt.Errorf("%w: area %d+%d beyond the image (%d bytes)", ErrTruncated, a.Offset, a.Length, v.size)
	}
	return nil
}

func (v volume) readJSON(r io.ReaderAt, rec Record, dst any) error {
	b, err := v.readFile(r, rec, maxInfoSize)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return nil
}

// kargsAreas returns nil when the ISO has no kargs.json.
func (v volume) kargsAreas(r io.ReaderAt) (*Kargs, error) {
	rec, err := v.lookup(r, KargsInfoPath)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var info kargsInfo
	if err := v.readJSON(r, rec, &info); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrBadKargs, KargsInfoPath, err)
	}
	if info.Size <= 0 || info.Size > maxKargsArea || len(info.Default) >= info.Size {
		return nil, fmt.Errorf("%w: size %d (limit %d) for default arguments of %d bytes", ErrBadKargs, info.Size, maxKargsArea, len(info.Default))
	}
	if len(info.Files) == 0 || len(info.Files) > maxKargsRegions {
		return nil, fmt.Errorf("%w: %d regions (want 1 to %d)", ErrBadKargs, len(info.Files), maxKargsRegions)
	}
	k := &Kargs{Default: info.Default, Size: info.Size}
	for _, f := range info.Files {
		reg, err := v.kargsRegion(r, f.Path, f.Offset, int64(info.Size))
		if err != nil {
			return nil, err
		}
		if reg.Pad, err = oneByte(f.Pad, '#'); err != nil {
			return nil, err
		}
		if reg.End, err = oneByte(f.End, '\n'); err != nil {
			return nil, err
		}
		k.Regions = append(k.Regions, reg)
	}
	return k, nil
}

func (v volume) kargsRegion(r io.ReaderAt, path string, off, size int64) (KargsRegion, error) {
	f, err := v.lookup(r, path)
	if err != nil {
		return KargsRegion{}, fmt.Errorf("%w: %w", ErrBadKargs, err)
	}
	if off < 0 || off+size > f.Size {
		return KargsRegion{}, fmt.Errorf("%w: region %d+%d outside %q (%d bytes)", ErrBadKargs, off, size, path, f.Size)
	}
	a := Area{Offset: f.Offset + off, Length: size}
	if err := v.checkArea(a, maxKargsArea); err != nil {
		return KargsRegion{}, fmt.Errorf("%w: %w", ErrBadKargs, err)
	}
	return KargsRegion{Area: a}, nil
}

func oneByte(s *string, def byte) (byte, error) {
	if s == nil {
		return def, nil
	}
	if len(*s) != 1 {
		return 0, fmt.Errorf("%w: pad/end %q is not one byte", ErrBadKargs, *s)
	}
	return (*s)[0], nil
}
