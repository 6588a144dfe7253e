package peers

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rackboot/rackboot/bench/internal/proc"
	"github.com/rackboot/rackboot/bench/internal/topo"
	"github.com/rackboot/rackboot/testbed/netns"
)

// TFTPDHPA starts in.tftpd (tftpd-hpa) in the foreground on ServerIP:69,
// chrooted to root, running as root so the namespace needs no users.
func TFTPDHPA(ctx context.Context, ns *netns.NS, dir, root string) (*proc.Proc, error) {
	return proc.Start(ctx, ns, "in.tftpd", filepath.Join(dir, "tftpd-hpa.log"), nil,
		"in.tftpd", "-L", "-u", "root", "--address", topo.ServerIP+":69", "-s", root)
}

// NginxPort is the port nginx listens on in the server namespace.
const NginxPort = 8081

// Nginx starts nginx in the foreground (daemon off) with a private config
// serving root on ServerIP:NginxPort with sendfile, one worker per CPU, no
// access log.
func Nginx(ctx context.Context, ns *netns.NS, dir, root string) (*proc.Proc, error) {
	conf := fmt.Sprintf(`daemon off;
user root;
worker_processes auto;
pid %[1]s/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    client_body_temp_path %[1]s/client_body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    types { application/octet-stream img; }
    server {
        listen %[2]s:%[3]d;
        root %[4]s;
    }
}
`, dir, topo.ServerIP, NginxPort, root)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, fmt.Errorf("peers: nginx config: %w", err)
	}
	return proc.Start(ctx, ns, "nginx", filepath.Join(dir, "nginx.log"), nil,
		"nginx", "-p", dir, "-e", "stderr", "-c", path)
}
