module github.com/rackboot/rackboot

go 1.26.8

require golang.org/x/sys v0.45.0
