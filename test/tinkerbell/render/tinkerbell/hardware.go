package tinkerbell

// Hardware is tinkerbell.org/v1alpha1 Hardware. Templates see it twice: as a map of its JSON (key
// "hardware") and through these Go types (key "Hardware": its interfaces and metadata).
type Hardware struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitempty"`

	Spec   HardwareSpec   `json:"spec,omitempty"`
	Status HardwareStatus `json:"status,omitempty"`
}

type HardwareSpec struct {
	AgentID     string                     `json:"agentID,omitempty"`
	Auto        AutoCapabilities           `json:"auto,omitempty"`
	BMCRef      *TypedLocalObjectReference `json:"bmcRef,omitempty"`
	Interfaces  []Interface                `json:"interfaces,omitempty"`
	References  map[string]Reference       `json:"references,omitempty"`
	Metadata    *HardwareMetadata          `json:"metadata,omitempty"`
	TinkVersion int64                      `json:"tinkVersion,omitempty"`
	Disks       []Disk                     `json:"disks,omitempty"`
	// resource.Quantity marshals as its string; fleet sets none, so the caller's strings pass as given.
	Resources  map[string]string `json:"resources,omitempty"`
	UserData   *string           `json:"userData,omitempty"`
	VendorData *string           `json:"vendorData,omitempty"`
}

// TypedLocalObjectReference is corev1's.
type TypedLocalObjectReference struct {
	APIGroup *string `json:"apiGroup"`
	Kind     string  `json:"kind"`
	Name     string  `json:"name"`
}

type AutoCapabilities struct {
	EnrollmentEnabled bool `json:"enrollmentEnabled,omitempty"`
}

type Reference struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name,omitempty"`
	Group     string `json:"group,omitempty"`
	Version   string `json:"version,omitempty"`
	Resource  string `json:"resource,omitempty"`
}

type Interface struct {
	Netboot     *Netboot `json:"netboot,omitempty"`
	Isoboot     *Isoboot `json:"isoboot,omitempty"`
	DHCP        *DHCP    `json:"dhcp,omitempty"`
	DisableDHCP bool     `json:"disableDhcp,omitempty"`
}

type Netboot struct {
	AllowPXE      *bool     `json:"allowPXE,omitempty"`
	AllowWorkflow *bool     `json:"allowWorkflow,omitempty"`
	IPXE          *IPXE     `json:"ipxe,omitempty"`
	OSIE          *OSIE     `json:"osie,omitempty"`
	PXELINUX      *PXELINUX `json:"pxelinux,omitempty"`
	RPI           *RPI      `json:"rpi,omitempty"`
}

type Isoboot struct {
	SourceISO string `json:"sourceISO,omitempty"`
}

type IPXE struct {
	URL      string `json:"url,omitempty"`
	Contents string `json:"contents,omitempty"`
	Binary   string `json:"binary,omitempty"`
}

type OSIE struct {
	BaseURL      string   `json:"baseURL,omitempty"`
	Kernel       string   `json:"kernel,omitempty"`
	Initrd       string   `json:"initrd,omitempty"`
	KernelParams []string `json:"kernelParams,omitempty"`
}

type PXELINUX struct {
	Config string `json:"config,omitempty"`
}

type RPI struct {
	ConfigTxt    string `json:"configTxt,omitempty"`
	FirmwarePath string `json:"firmwarePath,omitempty"`
	SerialNum    string `json:"serialNum"`
}

type DHCP struct {
	MAC                   string                 `json:"mac,omitempty"`
	Hostname              string                 `json:"hostname,omitempty"`
	DomainName            string                 `json:"domain_name,omitempty"`
	LeaseTime             int64                  `json:"lease_time,omitempty"`
	NameServers           []string               `json:"name_servers,omitempty"`
	TimeServers           []string               `json:"time_servers,omitempty"`
	Arch                  string                 `json:"arch,omitempty"`
	UEFI                  bool                   `json:"uefi,omitempty"`
	IfaceName             string                 `json:"iface_name,omitempty"`
	IP                    *IP                    `json:"ip,omitempty"`
	VLANID                string                 `json:"vlan_id,omitempty"`
	ClasslessStaticRoutes []ClasslessStaticRoute `json:"classless_static_routes,omitempty"`
	TFTPServerName        string                 `json:"tftp_server_name,omitempty"`
	BootFileName          string                 `json:"boot_file_name,omitempty"`
}

type IP struct {
	Address string `json:"address,omitempty"`
	Netmask string `json:"netmask,omitempty"`
	Gateway string `json:"gateway,omitempty"`
	Family  int64  `json:"family,omitempty"`
}

type ClasslessStaticRoute struct {
	DestinationDescriptor string `json:"destination_descriptor"`
	Router                string `json:"router"`
}

type Disk struct {
	Device string `json:"device,omitempty"`
}

type HardwareStatus struct {
	State string `json:"state,omitempty"`
	// Out-of-band inventory Rufio collects: no template of fleet's reads it, so it passes as given.
	Attributes map[string]interface{} `json:"attributes,omitempty"`
}
