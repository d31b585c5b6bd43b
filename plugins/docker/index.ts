// The Docker runtime plugin and what embedders may reuse of it (the Engine client). The plugin itself
// lives in plugin.ts (cheap to load), its runtime in apply.ts.
export { PLUGIN_NAME, dockerPlugin } from './plugin.js';
export { createDockerClient, dockerodeOptions, parseDockerHost, pingEngine } from './client.js';
export type { DockerConnectionOptions, DockerEndpoint } from './client.js';
export type { AuthFor, DockerPluginOptions, RegistryAuth } from './options.js';
export { dockerOptions } from './options.js';
export type { RepairReport } from './repair.js';

export { dockerPlugin as default } from './plugin.js';
