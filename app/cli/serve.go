package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"vastview/app/serve"
	"vastview/levels"
	"vastview/loader"
	"vastview/session"
)

// cmdServe serves each SRC read-only over HTTP as an OME-Zarr image until
// SIGINT or SIGTERM.
func cmdServe(args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, args, stdout, stderr)
}

// serveUntil is cmdServe until ctx ends.
func serveUntil(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8000", "address to listen on, HOST:PORT")
	token := fs.String("token", "", "require the header Authorization: Bearer T, or ?token=T in the URL")
	compress := fs.String("compress", "none", "chunk compression: none or zstd")
	budget := fs.String("budget", "", "memory for cached chunks, e.g. 1GiB (default: min(25% of RAM, 4GiB))")
	var cors, hosts []string
	fs.Func("cors", "let web pages of `ORIGIN` (scheme://host[:port], or *) read the images (repeatable)", func(o string) error {
		n, ok := serve.Origin(o)
		if !ok {
			return fmt.Errorf("%q is not an origin: want scheme://host[:port] (e.g. https://neuroglancer-demo.appspot.com) or *", o)
		}
		cors = append(cors, n)
		return nil
	})
	fs.Func("allow-host", "answer requests whose Host header is `NAME` too (repeatable)", func(h string) error {
		if strings.TrimSpace(h) == "" || strings.ContainsAny(h, "/ @") {
			return fmt.Errorf("%q is not a host name", h)
		}
		hosts = append(hosts, h)
		return nil
	})
	pos, err := parseArgs(fs, args)
	if err != nil {
		return usageError{"serve: " + err.Error()}
	}
	if len(pos) == 0 {
		return usageError{"serve needs at least one SRC"}
	}
	if *compress != "none" && *compress != "zstd" {
		return usageError{"serve: --compress must be none or zstd"}
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		return usageError{"serve: --addr: " + *addr + " is not HOST:PORT"}
	}
	cacheBytes := levels.DefaultCacheBytes()
	if *budget != "" {
		if cacheBytes, err = levels.ParseBudget(*budget, false); err != nil {
			return usageError{"serve: --budget: " + err.Error()}
		}
	}
	names := serve.Names(pos)
	var imgs []serve.Image
	defer func() {
		for _, im := range imgs {
			im.Src.Close()
		}
	}()
	// The sources share the budget.
	each := levels.Part(cacheBytes, len(pos))
	for i, p := range pos {
		// Nothing outside what was named: no companion file outside a
		// dataset's folder, no link out of a Zarr or N5 folder.
		src, err := loader.Open(loader.Confine(context.Background()), p)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		mode := src.Meta().Label
		if c := maxChunkBytes(src.Meta()); c > each {
			src.Close()
			return fmt.Errorf("%s: its chunks of %s are larger than its share of the memory budget, %s (--budget)", p,
				session.HumanBytes(c), session.HumanBytes(each))
		}
		opt := levels.Options{CacheBytes: each, Mode: mode}
		if err := useDiskCache(p, src, &opt); err != nil {
			fmt.Fprintf(stderr, "vastview: %s: disk cache not used: %v\n", p, err)
		}
		pyr, err := levels.Open(src, opt)
		if err != nil {
			src.Close()
			return fmt.Errorf("%s: %w", p, err)
		}
		imgs = append(imgs, serve.Image{Name: names[i], Src: pyr, Type: map[bool]string{true: "mode", false: "mean"}[mode]})
	}
	srv, err := serve.New(imgs, serve.Options{Token: *token, Codec: *compress, Log: stderr, CORS: cors, AllowHosts: hosts})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: cannot listen on %s: %v", *addr, err)
	}
	base := "http://" + ln.Addr().String()
	for i, im := range imgs {
		fmt.Fprintf(stdout, "%s/%s%s  %s\n", base, im.Name, serve.Suffix, pos[i])
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && host != "localhost" && *token == "" {
		fmt.Fprintf(stderr, "vastview: serving on %s without --token: anyone who can reach it can read these images\n", ln.Addr())
	}
	err = serve.Serve(ctx, ln, srv)
	n, b := srv.Chunks()
	fmt.Fprintf(stderr, "vastview: served %d chunks, %s\n", n, session.HumanBytes(b))
	return err
}
