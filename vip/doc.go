// Package vip holds the rack's service address: a virtual IPv4 address that
// the raft leader takes, announces with gratuitous ARP and answers ARP for,
// and gives up when it loses leadership, so that hosts and BMCs reach
// whichever appliance leads at the one address every URL names.
//
// The address lives on the loopback interface (as a /32), not on the
// segment's interface, and the kernel is told not to answer ARP for it there
// (arp_ignore=1, arp_announce=2 on that interface, as for LVS direct
// routing): this process answers ARP requests for it itself, through an
// AF_PACKET socket, while it holds it. So an appliance whose rackbootd died
// (kill -9, a crash, the OOM killer) without removing the address answers no
// ARP for it: a host that resolves the address afresh finds only the live
// leader, never a dead process's kernel refusing its connections. Packets
// that reach a holder are accepted (the weak host model), whatever interface
// they arrive on. The appliance needs its own address on the interface, in
// the service address's subnet.
//
// Each announcement goes out in both forms neighbours accept as gratuitous:
// an ARP request and an ARP reply whose sender and target protocol addresses
// are the service address. Linux peers update an existing neighbour entry on
// either (they create none unless arp_accept is set).
//
// The address is changed with rtnetlink (RTM_NEWADDR/RTM_DELADDR) over a
// NETLINK_ROUTE socket, ARP with AF_PACKET sockets, all from
// golang.org/x/sys/unix. New opens every socket, so they live in the network
// namespace New runs in, whatever thread later calls Acquire or Release.
// Needs CAP_NET_ADMIN and CAP_NET_RAW.
package vip
