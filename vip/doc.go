// Package vip holds the rack's service address: a virtual IPv4 address that
// the raft leader adds to one of its interfaces and announces with
// gratuitous ARP, and removes when it loses leadership, so that hosts and
// BMCs reach whichever appliance leads at the one address every URL names.
//
// It talks to the kernel directly: rtnetlink (RTM_NEWADDR/RTM_DELADDR) over
// a NETLINK_ROUTE socket for the address, and an AF_PACKET socket for the
// ARP frames, both from golang.org/x/sys/unix. Each announcement is sent in
// both forms neighbours accept as gratuitous: an ARP request and an ARP
// reply whose sender and target protocol addresses are the service address.
// Linux peers update an existing neighbour entry on either (they create none
// unless arp_accept is set, which is enough: a peer that never talked to the
// address has nothing stale to fix).
//
// Both sockets are opened by New, so they live in the network namespace New
// runs in, whatever thread later calls Acquire or Release. Needs
// CAP_NET_ADMIN and CAP_NET_RAW.
package vip
