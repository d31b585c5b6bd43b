// The registry plugin's one content digest (plugins/registry/content-digest.ts), used for a manifest whose
// HEAD gave no digest and for the check of a read by digest: FIPS 180-2 vectors, in the `sha256:` form.
import t from 'tap';
import { sha256Digest } from '../../../plugins/registry/content-digest.js';

t.equal(sha256Digest(Buffer.alloc(0)), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'the empty body');
t.equal(sha256Digest(Buffer.from('abc')), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', '"abc"');
t.not(sha256Digest(Buffer.from('{"a":1}')), sha256Digest(Buffer.from('{"a": 1}')), 'bytes, not the JSON they mean');
