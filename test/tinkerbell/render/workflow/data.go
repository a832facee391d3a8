package workflow

import (
	"encoding/json"
	"errors"

	"tinkrender/tinkerbell"
)

// templateHardwareData is what a Template reads as .Hardware (the legacy, Go-field-named view).
type templateHardwareData struct {
	Disks      []string
	Interfaces []tinkerbell.Interface
	UserData   string
	Metadata   tinkerbell.HardwareMetadata
	VendorData string
}

func legacyHardware(hw tinkerbell.Hardware) templateHardwareData {
	var d templateHardwareData
	for _, disk := range hw.Spec.Disks {
		d.Disks = append(d.Disks, disk.Device)
	}
	if len(hw.Spec.Interfaces) > 0 {
		d.Interfaces = hw.Spec.Interfaces
	}
	if hw.Spec.UserData != nil {
		d.UserData = *hw.Spec.UserData
	}
	if hw.Spec.Metadata != nil {
		d.Metadata = *hw.Spec.Metadata
	}
	if hw.Spec.VendorData != nil {
		d.VendorData = *hw.Spec.VendorData
	}
	return d
}

// Data is the template data Tinkerbell's controller builds: every hardwareMap entry at the top
// level (a string each), then "hardware" (the Hardware's JSON as a map), "Hardware" (the legacy
// view) and "references". The second value is the error the references left: under Tinkerbell's
// default rules (deny every reference, allow none) each one is denied and none is read.
func Data(wf tinkerbell.Workflow, hw tinkerbell.Hardware) (map[string]interface{}, error) {
	data := map[string]interface{}{}
	for k, v := range wf.Spec.HardwareMap {
		data[k] = v
	}
	data["hardware"] = jsonMap(hw)
	data["Hardware"] = legacyHardware(hw)
	var refErr error
	for range hw.Spec.References {
		refErr = errors.Join(refErr, errors.New("reference denied"))
	}
	data["references"] = map[string]interface{}{}
	return data, refErr
}

// jsonMap is the object's JSON read back as a map, so templates use JSON names; on error
// Tinkerbell logs and uses an empty map.
func jsonMap(v interface{}) map[string]interface{} {
	m := map[string]interface{}{}
	b, err := json.Marshal(v)
	if err != nil {
		return map[string]interface{}{}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]interface{}{}
	}
	return m
}
