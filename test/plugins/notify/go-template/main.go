// Renders a corpus of notification templates with Go's own text/template, using data types shaped like
// Watchtower's notification model (docs/notifications.md, "Templates"), so the parity test can compare
// Tidewatch's interpreter with the real thing. Reads {"cases":[...]} on stdin, writes a JSON array.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/template"
	"time"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

type ImageID string
type ContainerID string

func (id ImageID) ShortID() string     { return shortID(string(id)) }
func (id ContainerID) ShortID() string { return shortID(string(id)) }

func shortID(longID string) string {
	prefixSep := strings.IndexRune(longID, ':')
	offset, length := 0, 12
	if prefixSep >= 0 {
		if longID[0:prefixSep] == "sha256" {
			offset = prefixSep + 1
		} else {
			length += prefixSep + 1
		}
	}
	if len(longID) >= offset+length {
		return longID[offset : offset+length]
	}
	return longID
}

type ContainerReport interface {
	ID() ContainerID
	Name() string
	CurrentImageID() ImageID
	LatestImageID() ImageID
	ImageName() string
	Error() string
	State() string
	IsMonitorOnly() bool
	NewContainerID() ContainerID
	// Tidewatch's tag fields (docs/notifications.md#tag-updates); Watchtower's model has none.
	CurrentTag() string
	LatestTag() string
	UpdateKind() string
	Note() string
}

type containerStatus struct {
	containerID    ContainerID
	containerName  string
	oldImage       ImageID
	newImage       ImageID
	imageName      string
	containerError string
	state          string
	monitorOnly    bool
	newContainerID ContainerID
	currentTag     string
	latestTag      string
	updateKind     string
	note           string
}

func (u *containerStatus) ID() ContainerID             { return u.containerID }
func (u *containerStatus) Name() string                { return u.containerName }
func (u *containerStatus) CurrentImageID() ImageID     { return u.oldImage }
func (u *containerStatus) LatestImageID() ImageID      { return u.newImage }
func (u *containerStatus) ImageName() string           { return u.imageName }
func (u *containerStatus) Error() string               { return u.containerError }
func (u *containerStatus) State() string               { return u.state }
func (u *containerStatus) IsMonitorOnly() bool         { return u.monitorOnly }
func (u *containerStatus) NewContainerID() ContainerID { return u.newContainerID }
func (u *containerStatus) CurrentTag() string          { return u.currentTag }
func (u *containerStatus) LatestTag() string           { return u.latestTag }
func (u *containerStatus) UpdateKind() string          { return u.updateKind }
func (u *containerStatus) Note() string                { return u.note }

type Report interface {
	Scanned() []ContainerReport
	Updated() []ContainerReport
	Failed() []ContainerReport
	Skipped() []ContainerReport
	Stale() []ContainerReport
	Fresh() []ContainerReport
	Restarted() []ContainerReport
	All() []ContainerReport
}

type report struct {
	scanned, updated, failed, skipped, stale, fresh, restarted []ContainerReport
}

func (r *report) Scanned() []ContainerReport   { return r.scanned }
func (r *report) Updated() []ContainerReport   { return r.updated }
func (r *report) Failed() []ContainerReport    { return r.failed }
func (r *report) Skipped() []ContainerReport   { return r.skipped }
func (r *report) Stale() []ContainerReport     { return r.stale }
func (r *report) Fresh() []ContainerReport     { return r.fresh }
func (r *report) Restarted() []ContainerReport { return r.restarted }

// All: unique by ID, the most significant state first, sorted by ID.
func (r *report) All() []ContainerReport {
	all := []ContainerReport{}
	seen := map[ContainerID]bool{}
	for _, list := range [][]ContainerReport{r.updated, r.restarted, r.failed, r.skipped, r.stale, r.fresh, r.scanned} {
		for _, c := range list {
			if !seen[c.ID()] {
				seen[c.ID()] = true
				all = append(all, c)
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].ID() < all[j].ID() })
	return all
}

type StaticData struct {
	Title string
	Host  string
}

type notificationEntry struct {
	Message string
	Data    map[string]any
	Time    time.Time
	Level   string
}

type Data struct {
	StaticData
	Entries []*notificationEntry
	Report  Report
}

type jsonMap = map[string]any

func (d Data) MarshalJSON() ([]byte, error) {
	entries := make([]jsonMap, len(d.Entries))
	for i, e := range d.Entries {
		entries[i] = jsonMap{"level": e.Level, "message": e.Message, "data": e.Data, "time": e.Time}
	}
	var rep jsonMap
	if d.Report != nil {
		rep = jsonMap{
			"scanned": marshalReports(d.Report.Scanned()), "updated": marshalReports(d.Report.Updated()),
			"restarted": marshalReports(d.Report.Restarted()), "failed": marshalReports(d.Report.Failed()),
			"skipped": marshalReports(d.Report.Skipped()), "stale": marshalReports(d.Report.Stale()),
			"fresh": marshalReports(d.Report.Fresh()),
		}
	}
	return json.Marshal(jsonMap{"report": rep, "title": d.Title, "host": d.Host, "entries": entries})
}

func marshalReports(reports []ContainerReport) []jsonMap {
	out := make([]jsonMap, len(reports))
	for i, r := range reports {
		out[i] = jsonMap{
			"id": r.ID().ShortID(), "name": r.Name(), "currentImageId": r.CurrentImageID().ShortID(),
			"latestImageId": r.LatestImageID().ShortID(), "imageName": r.ImageName(), "state": r.State(),
		}
		if r.Error() != "" {
			out[i]["error"] = r.Error()
		}
	}
	return out
}

type porcelainContainer struct {
	Name            string `json:"name"`
	Image           string `json:"image"`
	ImageID         string `json:"image_id"`
	LatestImageID   string `json:"latest_image_id"`
	State           string `json:"state"`
	UpdateAvailable bool   `json:"update_available"`
	Error           string `json:"error,omitempty"`
}

type porcelainReport struct {
	Containers []porcelainContainer `json:"containers"`
}

func toPorcelainJSON(r Report) string {
	out := porcelainReport{Containers: []porcelainContainer{}}
	if r != nil {
		for _, c := range r.All() {
			out.Containers = append(out.Containers, porcelainContainer{
				Name: c.Name(), Image: c.ImageName(), ImageID: c.CurrentImageID().ShortID(),
				LatestImageID: c.LatestImageID().ShortID(), State: c.State(),
				UpdateAvailable: c.CurrentImageID() != c.LatestImageID(), Error: c.Error(),
			})
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return fmt.Sprintf("failed to marshal porcelain JSON: %v", err)
	}
	return string(b)
}

func toJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("failed to marshal JSON in notification template: %v", err)
	}
	return string(b)
}

func formatRFC1123(value string) string {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		return value
	}
	return t.Format(time.RFC1123)
}

var funcs = template.FuncMap{
	"ToUpper":         strings.ToUpper,
	"ToLower":         strings.ToLower,
	"ToJSON":          toJSON,
	"ToPorcelainJSON": toPorcelainJSON,
	"Title":           cases.Title(language.AmericanEnglish).String,
	"RFC1123":         formatRFC1123,
}

// ---- corpus input

type inContainer struct {
	ID, Name, ImageName, CurrentImageID, LatestImageID, State, Error, NewContainerID string
	CurrentTag, LatestTag, UpdateKind, Note                                          string
	MonitorOnly                                                                      bool
}

type inReport struct {
	Scanned, Updated, Failed, Skipped, Stale, Fresh, Restarted []inContainer
}

type inEntry struct {
	Level, Message, Time string
	Data                 map[string]any
}

type inData struct {
	Title, Host string
	Entries     []inEntry
	Report      *inReport
}

type inCase struct {
	Name     string
	Template string
	Root     string // "data" (report mode), "entries" (legacy mode) or "raw" (any JSON)
	Data     json.RawMessage
}

type result struct {
	Name   string  `json:"name"`
	Output *string `json:"output,omitempty"`
	Error  *string `json:"error,omitempty"`
}

// normalize turns json.Number into int64 or float64, as Watchtower does for log fields.
func normalize(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

func decode(raw json.RawMessage, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(into)
}

func containers(in []inContainer) []ContainerReport {
	out := []ContainerReport{}
	for _, c := range in {
		out = append(out, &containerStatus{
			containerID: ContainerID(c.ID), containerName: c.Name, oldImage: ImageID(c.CurrentImageID),
			newImage: ImageID(c.LatestImageID), imageName: c.ImageName, containerError: c.Error, state: c.State,
			monitorOnly: c.MonitorOnly, newContainerID: ContainerID(c.NewContainerID),
			currentTag: c.CurrentTag, latestTag: c.LatestTag, updateKind: c.UpdateKind, note: c.Note,
		})
	}
	return out
}

func buildData(raw json.RawMessage) (Data, error) {
	var in inData
	if err := decode(raw, &in); err != nil {
		return Data{}, err
	}
	d := Data{StaticData: StaticData{Title: in.Title, Host: in.Host}, Entries: []*notificationEntry{}}
	for _, e := range in.Entries {
		t, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil {
			return Data{}, err
		}
		data := e.Data
		if data != nil {
			normalize(data)
		}
		d.Entries = append(d.Entries, &notificationEntry{Message: e.Message, Data: data, Time: t, Level: e.Level})
	}
	if in.Report != nil {
		r := in.Report
		d.Report = &report{
			scanned: containers(r.Scanned), updated: containers(r.Updated), failed: containers(r.Failed),
			skipped: containers(r.Skipped), stale: containers(r.Stale), fresh: containers(r.Fresh),
			restarted: containers(r.Restarted),
		}
	}
	return d, nil
}

func render(c inCase) (string, error) {
	var root any
	switch c.Root {
	case "data", "entries":
		d, err := buildData(c.Data)
		if err != nil {
			return "", err
		}
		root = d
		if c.Root == "entries" {
			root = d.Entries
		}
	default:
		var v any
		if err := decode(c.Data, &v); err != nil {
			return "", err
		}
		root = normalize(v)
	}
	tpl, err := template.New("").Funcs(funcs).Parse(c.Template)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	err = tpl.Execute(&out, root)
	return out.String(), err
}

func main() {
	var corpus struct{ Cases []inCase }
	if err := json.NewDecoder(os.Stdin).Decode(&corpus); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	results := []result{}
	for _, c := range corpus.Cases {
		out, err := render(c)
		r := result{Name: c.Name}
		if err != nil {
			msg := err.Error()
			r.Error = &msg
		} else {
			r.Output = &out
		}
		results = append(results, r)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
