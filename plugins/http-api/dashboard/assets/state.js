// What the page knows, shared by its modules (docs/dashboard.md).
export const state = {
  containers: [],
  checks: new Map(), // name -> { record, at }
  details: new Map(), // name -> /v1/containers/details entry (the last check's tag fields, from any run)
  updating: new Set(),
  sort: { key: 'name', dir: 1 },
  events: null,
  ownRun: false,
  notesOpen: new Set(), // names whose release notes are expanded, kept across renders
  timeline: undefined, // the container whose timeline is shown
};
