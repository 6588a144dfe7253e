package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// checker turns the decoded file into a Config, reporting every problem at
// the position of the key or value at fault.
type checker struct {
	r    *report
	ix   *index
	dir  string // the configuration file's directory
	root string // prefix for absolute paths
	cfg  *Config
}

func (c *checker) check(f *file) {
	c.server(f.Server)
	c.dhcp(f.DHCP)
	c.reservations(f.DHCP.Reservation)
	c.tftp(f.TFTP)
	c.profiles(f.Profile)
	c.engine(f.Engine)
	c.imageSets(f.ImageSet)
	c.api(f.API)
	c.cluster(f.Cluster)
}

// errAt reports a problem with the value at path.
func (c *checker) errAt(path, format string, args ...any) {
	c.r.add(c.ix.val(path), format, args...)
}

// missing reports a required key that is absent or empty.
func (c *checker) missing(path, why string) {
	c.r.add(c.ix.key(path), "%s is missing: %s", display(path), why)
}

// str is the value at path, or def when the document does not set it.
func (c *checker) str(path, v, def string) string {
	if !c.ix.has(path) {
		return def
	}
	return v
}

func (c *checker) server(f fileServer) {
	s := &c.cfg.Server
	s.DataDir = c.path(c.str("server.data_dir", f.DataDir, "/var/lib/rackboot"))
	s.AgentDir = c.path(c.str("server.agent_dir", f.AgentDir, DefaultAgentDir))
	if f.Advertise == "" {
		c.missing("server.advertise", "set the IPv4 address hosts use to reach this appliance")
	} else if a, ok := c.addr("server.advertise", f.Advertise); ok {
		if a.IsUnspecified() {
			c.errAt("server.advertise", "server.advertise %s is not an address hosts can reach", a)
		}
		s.Advertise = a
	}
	s.HTTPListen = c.listen("server.http_listen", c.str("server.http_listen", f.HTTPListen, ":8080"))
	if f.PprofListen != "" {
		s.PprofListen = c.listen("server.pprof_listen", f.PprofListen)
		if host, _, err := net.SplitHostPort(f.PprofListen); err == nil {
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				c.errAt("server.pprof_listen", "server.pprof_listen %q must be a loopback address (127.0.0.1:port or [::1]:port): profiles show the daemon's memory", f.PprofListen)
			}
		}
	}
	switch lvl := c.str("server.log_level", f.LogLevel, "info"); lvl {
	case "debug", "info", "warn", "error":
		_ = s.LogLevel.UnmarshalText([]byte(lvl))
	default:
		c.errAt("server.log_level", "server.log_level must be debug, info, warn or error, not %q", lvl)
	}
	switch s.LogFormat = c.str("server.log_format", f.LogFormat, "text"); s.LogFormat {
	case "text", "json":
	default:
		c.errAt("server.log_format", "server.log_format must be text or json, not %q", s.LogFormat)
	}
}

// listen checks a host:port listen address whose host, when given, is an IP
// address.
func (c *checker) listen(path, v string) string {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		c.errAt(path, "%s %q is not host:port (for example \":8080\" or \"10.99.0.1:8080\")", display(path), v)
		return v
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		c.errAt(path, "%s %q has no port between 1 and 65535", display(path), v)
	}
	if host != "" && net.ParseIP(host) == nil {
		c.errAt(path, "%s %q: %q is not an IP address", display(path), v, host)
	}
	return v
}

// maxTFTPTransfers is the TFTP server's cap on transfers in all.
const maxTFTPTransfers = 512

func (c *checker) tftp(f fileTFTP) {
	t := &c.cfg.TFTP
	t.Enabled = !c.ix.has("tftp.enabled") || f.Enabled
	t.Listen = c.listen("tftp.listen", c.str("tftp.listen", f.Listen, ":69"))
	t.Root = c.str("tftp.root", f.Root, "/usr/lib/ipxe")
	t.MaxTransfersPerClient = f.MaxTransfersPerClient
	if n := f.MaxTransfersPerClient; c.ix.has("tftp.max_transfers_per_client") && (n < 1 || n > maxTFTPTransfers) {
		c.errAt("tftp.max_transfers_per_client", "tftp.max_transfers_per_client %d is not between 1 and %d", n, maxTFTPTransfers)
	}
	if t.Root == "" {
		c.missing("tftp.root", "set the directory the TFTP server serves")
		return
	}
	written := t.Root
	t.Root = c.path(written)
	if t.Enabled {
		c.exists("tftp.root", written, t.Root, true)
	}
}

// path resolves p: relative to the configuration file's directory, and
// absolute under the root.
func (c *checker) path(p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Join(c.root, p)
	}
	return filepath.Join(c.dir, p)
}

// exists reports a file (or, with dir, a directory) at path that cannot be
// used; written is the path as the file gives it.
func (c *checker) exists(key, written, path string, dir bool) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.errAt(key, "%s %q does not exist", display(key), written)
	case err != nil:
		c.errAt(key, "%s %q cannot be read: %s", display(key), written, pathErr(err))
	case dir && !fi.IsDir():
		c.errAt(key, "%s %q is not a directory", display(key), written)
	case !dir && !fi.Mode().IsRegular():
		c.errAt(key, "%s %q is not a regular file", display(key), written)
	case !dir:
		f, err := os.Open(path)
		if err != nil {
			c.errAt(key, "%s %q cannot be read: %s", display(key), written, pathErr(err))
			return
		}
		_ = f.Close()
	}
}

// pathErr is the reason of an *fs.PathError, without the path.
func pathErr(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// quoteList formats names for a message.
func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// at names a position for a message about two places in the file.
func at(p Pos) string {
	return fmt.Sprintf("line %d", p.Line)
}
