// The built-in templates Watchtower ships, by name (docs/notifications.md, "Templates"): `default` (report
// mode), `default-legacy` (log entries), `porcelain.v1.summary-no-log`, `json.v1` and `porcelain.json`. The
// text is data that must match Watchtower's byte for byte (whitespace included), but for `default`'s tag
// fields (docs/notifications.md#tag-updates); test/plugins/notify/template-parity.test.ts checks both against Go.

/** Watchtower's `default` template, verbatim: Tidewatch's `default` is this plus the tag fields below. */
export const WATCHTOWER_DEFAULT =
    "\n" +
    "{{- if .Report -}}\n" +
    "  {{- /* Use report summary data */ -}}\n" +
    "  {{- with .Report -}}\n" +
    "    {{len .Scanned}} Scanned, {{len .Updated}} Updated, {{len .Restarted}} Restarted, {{len .Failed}} Failed, {{len .Fresh}} Fresh, {{len .Skipped}} Skipped\n" +
    "      {{- /* List successfully updated containers */ -}}\n" +
    "      {{- range .Updated}}\n" +
    "- {{.Name}} ({{.ImageName}}): {{.CurrentImageID.ShortID}} updated to {{.LatestImageID.ShortID}}\n" +
    "      {{- end -}}\n" +
    "      {{- /* List restarted containers */ -}}\n" +
    "      {{- range .Restarted}}\n" +
    "- {{.Name}} ({{.ImageName}}): {{.State}}\n" +
    "      {{- end -}}\n" +
    "      {{- /* List fresh containers (no update needed) */ -}}\n" +
    "      {{- range .Fresh}}\n" +
    "- {{.Name}} ({{.ImageName}}): {{.State}}\n" +
    "\t  {{- end -}}\n" +
    "\t  {{- /* List skipped containers with reason */ -}}\n" +
    "\t  {{- range .Skipped}}\n" +
    "- {{.Name}} ({{.ImageName}}): {{.State}}: {{.Error}}\n" +
    "\t  {{- end -}}\n" +
    "\t  {{- /* List failed containers with error */ -}}\n" +
    "\t  {{- range .Failed}}\n" +
    "- {{.Name}} ({{.ImageName}}): {{.State}}: {{.Error}}\n" +
    "\t  {{- end -}}\n" +
    "  {{- end -}}\n" +
    "{{- else -}}\n" +
    "  {{- /* Fallback to simple entry messages */ -}}\n" +
    "  {{range .Entries -}}{{.Message}}{{\"\\n\"}}{{- end -}}\n" +
    "{{- end -}}";

const UPDATED_LINE = "- {{.Name}} ({{.ImageName}}): {{.CurrentImageID.ShortID}} updated to {{.LatestImageID.ShortID}}\n";

/**
 * Tidewatch's `default`: Watchtower's, with an updated container's version change and note appended
 * (docs/notifications.md#tag-updates). Both are empty for every container Watchtower could report, so for
 * those the text is Watchtower's byte for byte (template-parity.test.ts renders both with Go to prove it).
 */
function tidewatchDefault(watchtower: string): string {
  if (!watchtower.includes(UPDATED_LINE)) throw new Error('default template: the updated line moved');
  return watchtower.replace(
    UPDATED_LINE,
    "- {{.Name}} ({{.ImageName}}): {{.CurrentImageID.ShortID}} updated to {{.LatestImageID.ShortID}}" +
      "{{if .LatestTag}}: {{.CurrentTag}} → {{.LatestTag}}{{with .UpdateKind}} ({{.}}){{end}}{{end}}{{with .Note}}\n  {{.}}{{end}}\n",
  );
}

export const builtinTemplates: Readonly<Record<string, string>> = Object.freeze({
  "default-legacy":
    "\n" +
    "{{- /* Iterate over entries, adding newline between them */ -}}\n" +
    "{{- range $i, $e := . -}}\n" +
    "{{- /* Add newline if not the first entry */ -}}\n" +
    "{{- if $i}}{{- println -}}{{- end -}}\n" +
    "{{- /* Extract message for conditional formatting */ -}}\n" +
    "{{- $msg := $e.Message -}}\n" +
    "{{- /* Format based on specific message types */ -}}\n" +
    "{{- if eq $msg \"Found new image\" -}}\n" +
    "    Found new image: {{index $e.Data \"image\"}} ({{with (index $e.Data \"new_id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Stopping container\" -}}\n" +
    "    Stopped stale container: {{index $e.Data \"container\"}} ({{with (index $e.Data \"id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Started new container\" -}}\n" +
    "    Started new container: {{index $e.Data \"container\"}} ({{with (index $e.Data \"new_id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Stopping linked container\" -}}\n" +
    "    Stopped linked container: {{index $e.Data \"container\"}} ({{with (index $e.Data \"id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Started linked container\" -}}\n" +
    "    Started linked container: {{index $e.Data \"container\"}} ({{with (index $e.Data \"new_id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Removing image\" -}}\n" +
    "    Cleaned up old image: {{with (index $e.Data \"image_name\")}}{{.}}{{else}}unknown{{end}} ({{with (index $e.Data \"image_id\")}}{{.}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Container updated\" -}}\n" +
    "    Updated container: {{with (index $e.Data \"container\")}}{{.}}{{else}}unknown{{end}} ({{with (index $e.Data \"image\")}}{{.}}{{else}}unknown{{end}}): {{with (index $e.Data \"old_id\")}}{{.}}{{else}}unknown{{end}} updated to {{with (index $e.Data \"new_id\")}}{{.}}{{else}}unknown{{end}}\n" +
    "{{- else if eq $msg \"Skipping Watchtower self-update in run-once mode\" -}}\n" +
    "    Run once mode: Watchtower self-update skipped\n" +
    "{{- else if eq $msg \"Detected multiple Watchtower instances - initiating cleanup\" -}}\n" +
    "    Detected {{index $e.Data \"count\"}} Watchtower instances - initiating cleanup\n" +
    "\t{{- else if eq $msg \"Successfully removed all excess Watchtower containers\" -}}\n" +
    "    Successfully removed {{index $e.Data \"removed_instances\"}} old Watchtower container{{if ne (index $e.Data \"removed_instances\") 1}}s{{end}}\n" +
    "{{- else if eq $msg \"Image is within cooldown period - not eligible for update\" -}}\n" +
    "    {{with (index $e.Data \"image\")}}{{.}}{{else}}unknown{{end}} created less than {{with (index $e.Data \"cooldown\")}}{{.}}{{else}}unknown{{end}} ago - eligible in {{with (index $e.Data \"eligible_in\")}}{{.}}{{else}}unknown{{end}} ({{with (index $e.Data \"eligible_at\")}}{{RFC1123 .}}{{else}}unknown{{end}})\n" +
    "{{- else if eq $msg \"Image age exceeds cooldown - eligible for update\" -}}\n" +
    "    {{with (index $e.Data \"image\")}}{{.}}{{else}}unknown{{end}} created more than {{with (index $e.Data \"cooldown\")}}{{.}}{{else}}unknown{{end}} ago - eligible for update\n" +
    "{{- else if eq $msg \"Image creation time unavailable - update check unavailable\" -}}\n" +
    "    {{with (index $e.Data \"image\")}}{{.}}{{else}}unknown{{end}} creation time unavailable (cooldown: {{with (index $e.Data \"cooldown\")}}{{.}}{{else}}unknown{{end}}) - update check unavailable\n" +
    "{{- else if eq $msg \"Starting HTTP API server\" -}}\n" +
    "    Starting HTTP API server at {{if (index $e.Data \"tls\")}}https{{else}}http{{end}}://{{index $e.Data \"host\"}}:{{index $e.Data \"port\"}}\n" +
    "{{- else if eq $msg \"HTTP API server is enabled\" -}}\n" +
    "    HTTP API server is available at {{if (index $e.Data \"tls\")}}https{{else}}http{{end}}://{{index $e.Data \"host\"}}:{{index $e.Data \"port\"}}\n" +
    "{{- else if eq $msg \"Only checking containers in scope\" -}}\n" +
    "    Only checking containers in scope: {{index $e.Data \"scope\"}}\n" +
    "{{- else if $e.Data -}}\n" +
    "    {{- /* For messages with data, show message and key=value pairs */ -}}\n" +
    "    {{$msg}} | {{range $k, $v := $e.Data}}{{$k}}={{$v}} {{end}}\n" +
    "{{- else -}}\n" +
    "    {{- /* For messages without data, show just the message */ -}}\n" +
    "    {{$msg}}\n" +
    "{{- end -}}\n" +
    "{{- end -}}",
  "default": tidewatchDefault(WATCHTOWER_DEFAULT),
  "porcelain.v1.summary-no-log":
    "\n" +
    "{{- if .Report -}}\n" +
    "  {{- /* Iterate over all containers */ -}}\n" +
    "  {{- range .Report.All }}\n" +
    "    {{- .Name}} ({{.ImageName}}): {{.State -}}\n" +
    "    {{- with .Error}} Error: {{.}}{{end}}{{ println }}\n" +
    "  {{- else -}}\n" +
    "    no containers matched filter\n" +
    "  {{- end -}}\n" +
    "{{- else -}}\n" +
    "  no containers matched filter\n" +
    "{{- end -}}",
  "json.v1":
    "{{ . | ToJSON }}",
  "porcelain.json":
    "{{ .Report | ToPorcelainJSON }}",
});

export type BuiltinTemplateName = 'default' | 'default-legacy' | 'porcelain.v1.summary-no-log' | 'json.v1' | 'porcelain.json';
