// Package packaging builds the rackboot .deb: build-deb.sh (run by
// `make package`), its maintainer scripts (postinst, prerm, postrm) and the
// commented default configuration rackboot.toml, installed as the conffile
// /etc/rackboot/rackboot.toml. It has no Go code: its tests build a package
// and inspect it with dpkg-deb.
package packaging
