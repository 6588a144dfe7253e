package httpbench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Subcommand names the load generator among a benchmark command's
// subcommands.
const Subcommand = "load-http"

// Args writes l's URLs to urls.txt in dir (a list of thousands of URLs does
// not fit a command line) and returns the command line, Subcommand first,
// from which RunArgs rebuilds l.
func (l Load) Args(dir string, timeout time.Duration) ([]string, error) {
	list := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(list, []byte(strings.Join(l.URLs, "\n")+"\n"), 0o644); err != nil {
		return nil, fmt.Errorf("httpbench: %w", err)
	}
	return []string{Subcommand, "-urls", list, "-size", strconv.FormatInt(l.Size, 10),
		"-rounds", strconv.Itoa(l.Rounds), "-sha256", l.SHA256, "-block", strconv.Itoa(l.Block),
		"-timeout", timeout.String()}, nil
}

// RunArgs is the load generator: it parses the arguments Args wrote (after
// the Subcommand), runs the load and returns its result.
func RunArgs(ctx context.Context, args []string) (Result, error) {
	fs := flag.NewFlagSet(Subcommand, flag.ContinueOnError)
	var l Load
	urls := fs.String("urls", "", "file with one URL per line")
	fs.Int64Var(&l.Size, "size", 0, "expected body size (0: as Content-Length says)")
	fs.IntVar(&l.Rounds, "rounds", 1, "downloads per URL, in a row")
	fs.StringVar(&l.SHA256, "sha256", "", "expected hex sha256 of every body (empty: no hashing)")
	fs.IntVar(&l.Block, "block", DefaultBlock, "bytes per read")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return Result{}, fmt.Errorf("httpbench: %w", err)
	}
	b, err := os.ReadFile(*urls)
	if err != nil {
		return Result{}, fmt.Errorf("httpbench: %w", err)
	}
	l.URLs = strings.Fields(string(b))
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	return l.Run(ctx), nil
}
