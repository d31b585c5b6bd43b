// The shapes a replacement is made from: a container's inspected Config and its image's own Config, with the
// fields @types/dockerode leaves out. Kept apart so that recreate-config.ts and podman-create.ts both read them
// without importing each other.
import type Docker from 'dockerode';

/** The inspected Config, with the fields @types/dockerode leaves out. */
export type InspectedConfig = Docker.ContainerInspectInfo['Config'] & {
  StopSignal?: string;
  StopTimeout?: number;
  Shell?: string[];
  MacAddress?: string;
};

/** The image's own Config: what `docker inspect <image>` calls `Config`. */
export interface ImageDefaults {
  readonly Env?: string[] | null;
  readonly Cmd?: string[] | null;
  readonly Entrypoint?: string | string[] | null;
  readonly Labels?: Record<string, string> | null;
  readonly Volumes?: Record<string, object> | null;
  readonly ExposedPorts?: Record<string, object> | null;
  readonly WorkingDir?: string;
  readonly User?: string;
  readonly StopSignal?: string;
  readonly Healthcheck?: Docker.HealthConfig | null;
}
