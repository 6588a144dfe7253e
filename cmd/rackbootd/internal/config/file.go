package config

// file is the document as written; Parse turns it into a Config.
type file struct {
	Server  fileServer    `toml:"server"`
	DHCP    fileDHCP      `toml:"dhcp"`
	TFTP    fileTFTP      `toml:"tftp"`
	Profile []fileProfile `toml:"profile"`
	Engine  fileEngine    `toml:"engine"`
	API     fileAPI       `toml:"api"`
	// Cluster is [cluster] (check_cluster.go).
	Cluster fileCluster `toml:"cluster"`
	// ImageSet is [[image_set]] (check_imagesets.go).
	ImageSet []fileImageSet `toml:"image_set"`
}

type fileServer struct {
	DataDir     string `toml:"data_dir"`
	Advertise   string `toml:"advertise"`
	HTTPListen  string `toml:"http_listen"`
	PprofListen string `toml:"pprof_listen"`
	LogLevel    string `toml:"log_level"`
	LogFormat   string `toml:"log_format"`
	AgentDir    string `toml:"agent_dir"`
}

type fileDHCP struct {
	Mode        string            `toml:"mode"`
	Interfaces  []string          `toml:"interfaces"`
	Subnet      string            `toml:"subnet"`
	Range       any               `toml:"range"` // [start, end] or [[start, end], ...]
	Router      string            `toml:"router"`
	DNS         []string          `toml:"dns"`
	Domain      string            `toml:"domain"`
	LeaseTime   string            `toml:"lease_time"`
	Reservation []fileReservation `toml:"reservation"`
}

type fileReservation struct {
	MAC      string `toml:"mac"`
	IP       string `toml:"ip"`
	Hostname string `toml:"hostname"`
	InfraEnv string `toml:"infra_env"`
}

type fileTFTP struct {
	Enabled               bool   `toml:"enabled"`
	Listen                string `toml:"listen"`
	Root                  string `toml:"root"`
	MaxTransfersPerClient int    `toml:"max_transfers_per_client"`
}

type fileProfile struct {
	Name     string   `toml:"name"`
	Kernel   string   `toml:"kernel"`
	Initrd   string   `toml:"initrd"`
	Cmdline  string   `toml:"cmdline"`
	Ignition string   `toml:"ignition"`
	MACs     []string `toml:"macs"`
}

type fileEngine struct {
	DefaultInfraEnv string         `toml:"default_infra_env"`
	DefaultProfile  string         `toml:"default_profile"`
	Thresholds      fileThresholds `toml:"thresholds"`
	DisconnectAfter string         `toml:"disconnect_after"`
	MonitorInterval string         `toml:"monitor_interval"`
	InstallTimeout  string         `toml:"install_timeout"`
}

type fileThresholds struct {
	Profile            string       `toml:"profile"`
	Master             fileMinimums `toml:"master"`
	Worker             fileMinimums `toml:"worker"`
	SingleNode         fileMinimums `toml:"single_node"`
	MemoryToleranceMiB int          `toml:"memory_tolerance_mib"`
	DiskSpeedMs        int          `toml:"installation_disk_speed_threshold_ms"`
}

type fileMinimums struct {
	CPUCores  int `toml:"cpu_cores"`
	MemoryMiB int `toml:"memory_mib"`
	DiskGB    int `toml:"disk_gb"`
}

type fileAPI struct {
	AdminRemote bool `toml:"admin_remote"`
}
