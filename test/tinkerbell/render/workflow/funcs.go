// Package workflow reproduces Tinkerbell's Template rendering and validation
// (tink/controller/internal/workflow in github.com/tinkerbell/tinkerbell): the same function map,
// options, output cap, YAML types, rules and error texts. Named workflow like Tinkerbell's package
// so that template errors name the same types.
package workflow

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"sigs.k8s.io/yaml"
)

// funcMap is Sprig's hermetic text/template map with Tinkerbell's four functions over it.
func funcMap() template.FuncMap {
	m := sprig.HermeticTxtFuncMap()
	addSprigGap(m)
	m["formatPartition"] = formatPartition
	m["netmaskToPrefixLength"] = netmaskToPrefixLength
	m["toYaml"] = toYaml
	m["fromYaml"] = fromYaml
	return m
}

// formatPartition names partition n of a disk: by-path/by-id names take -partN, names ending in a
// digit (nvme0n1, mmcblk0) take pN, the rest (sda) take N.
func formatPartition(dev string, partition int) string {
	switch {
	case strings.HasPrefix(dev, "/dev/disk/"):
		return dev + "-part" + strconv.Itoa(partition)
	case dev != "" && dev[len(dev)-1] >= '0' && dev[len(dev)-1] <= '9':
		return dev + "p" + strconv.Itoa(partition)
	default:
		return dev + strconv.Itoa(partition)
	}
}

// netmaskToPrefixLength turns a dotted IPv4 netmask into its prefix length, as a string. A mask
// whose ones are not contiguous gives "0", as net.IPMask.Size does.
func netmaskToPrefixLength(netmask string) (string, error) {
	ip := net.ParseIP(netmask)
	if ip == nil {
		return "", fmt.Errorf("invalid netmask format: %s", netmask)
	}
	v4 := ip.To4()
	if v4 == nil {
		return "", fmt.Errorf("netmask must be IPv4: %s", netmask)
	}
	ones, _ := net.IPMask(v4).Size()
	return strconv.Itoa(ones), nil
}

// toYaml is sigs.k8s.io/yaml's Marshal without the final newline; an error stops the render.
func toYaml(v interface{}) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("toYaml: %w", err)
	}
	return strings.TrimSuffix(string(b), "\n"), nil
}

// fromYaml is sigs.k8s.io/yaml's Unmarshal into an interface{}; empty input is an error.
func fromYaml(s string) (interface{}, error) {
	if s == "" {
		return nil, fmt.Errorf("fromYaml: empty YAML input")
	}
	var v interface{}
	if err := yaml.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("fromYaml: %w", err)
	}
	return v, nil
}
