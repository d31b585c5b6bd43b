// Import this first in test files that push images with test/helpers/images.ts (built on Node's
// fetch) and also load the registry plugin (npm undici 7). Loading undici 7 makes its Agent Node's
// global dispatcher when none exists yet, and Node 20's built-in fetch then fails on the explicit
// `content-length` header the helper sets ("invalid content-length header"). Calling fetch once
// loads Node's own undici first, which installs its own dispatcher; undici 7 then leaves it alone.
// A data: URL makes no request.
void fetch('data:,').catch(() => undefined);
export {};
