// A Sigstore-like trust for the keyless tests, made with openssl on this machine (nothing fetched):
// a test CA issuing a Fulcio-style signing certificate (the identity in the SAN, the OIDC issuer in
// Sigstore's extensions 1.3.6.1.4.1.57264.1.1 (raw) and .1.8 (UTF8String), code signing), a timestamp
// authority whose RFC 3161 responses come from `openssl ts -reply`, and a trusted_root.json naming both
// (docs/signatures.md#keyless).
import { execFileSync } from 'node:child_process'
import { X509Certificate } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { makeKey, type TestKey } from './cosign.js'

export interface Keyless {
  /** the signing key whose certificate the CA issued */
  readonly key: TestKey
  /** DER of the signing certificate */
  readonly certificate: Buffer
  /** an RFC 3161 TimeStampResp (DER) over `data` */
  timestamp(data: Buffer): Buffer
  /** another certificate from the same CA, for `who` (same issuer) */
  issue(who: string): { key: TestKey; certificate: Buffer }
  /** path of the trusted_root.json */
  readonly trustedRoot: string
  readonly dir: string
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] })
}

function der(pemPath: string): Buffer {
  return Buffer.from(new X509Certificate(readFileSync(pemPath)).raw)
}

/** A CA, a certificate for `identity` from `issuer`, a TSA and their trusted root, in a new temp dir. */
export function makeKeyless(identity: string, issuer: string, options: { caName?: string } = {}): Keyless {
  const dir = mkdtempSync(join(tmpdir(), 'tw-keyless-'))
  const caName = options.caName ?? 'tidewatch-test-fulcio'
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key'])
  openssl(dir, [
    'req', '-x509', '-new', '-key', 'ca.key', '-subj', `/O=tidewatch-test/CN=${caName}`, '-days', '2', '-out', 'ca.pem',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ])
  let leaves = 0
  const issue = (who: string): { key: TestKey; certificate: Buffer } => {
    const id = ++leaves
    const key = makeKey('ecdsa')
    writeFileSync(join(dir, `leaf-${id}.key`), key.privateKey.export({ type: 'pkcs8', format: 'pem' }))
    openssl(dir, ['req', '-new', '-key', `leaf-${id}.key`, '-subj', '/O=sigstore.dev', '-out', `leaf-${id}.csr`])
    writeFileSync(
      join(dir, `leaf-${id}.ext`),
      [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=codeSigning',
        `subjectAltName=email:${who}`,
        `1.3.6.1.4.1.57264.1.1=DER:${Buffer.from(issuer).toString('hex')}`,
        `1.3.6.1.4.1.57264.1.8=ASN1:UTF8String:${issuer}`,
      ].join('\n'),
    )
    openssl(dir, ['x509', '-req', '-in', `leaf-${id}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', `leaf-${id}.ext`, '-out', `leaf-${id}.pem`])
    return { key, certificate: der(join(dir, `leaf-${id}.pem`)) }
  }
  const leaf = issue(identity)

  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tsa.key'])
  openssl(dir, ['req', '-new', '-key', 'tsa.key', '-subj', '/O=tidewatch-test/CN=test-tsa', '-out', 'tsa.csr'])
  writeFileSync(join(dir, 'tsa.ext'), 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n')
  openssl(dir, ['x509', '-req', '-in', 'tsa.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '1', '-extfile', 'tsa.ext', '-out', 'tsa.pem'])
  writeFileSync(join(dir, 'tsaserial'), '01\n')
  writeFileSync(
    join(dir, 'ts.cnf'),
    [
      '[ tsa ]', 'default_tsa = tsa1', '[ tsa1 ]', `serial = ${join(dir, 'tsaserial')}`, 'crypto_device = builtin',
      `signer_cert = ${join(dir, 'tsa.pem')}`, `certs = ${join(dir, 'ca.pem')}`, `signer_key = ${join(dir, 'tsa.key')}`,
      'signer_digest = sha256', 'default_policy = 1.2.3.4.1', 'digests = sha256', 'accuracy = secs:1', 'ordering = yes',
      'tsa_name = no', 'ess_cert_id_chain = no', 'ess_cert_id_alg = sha256',
    ].join('\n'),
  )

  const start = new Date(Date.now() - 86_400_000).toISOString()
  const root = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [],
    ctlogs: [],
    certificateAuthorities: [
      {
        subject: { organization: 'tidewatch-test', commonName: caName },
        uri: 'https://fulcio.test.invalid',
        certChain: { certificates: [{ rawBytes: der(join(dir, 'ca.pem')).toString('base64') }] },
        validFor: { start },
      },
    ],
    timestampAuthorities: [
      {
        subject: { organization: 'tidewatch-test', commonName: 'test-tsa' },
        uri: 'https://tsa.test.invalid',
        certChain: { certificates: [{ rawBytes: der(join(dir, 'tsa.pem')).toString('base64') }, { rawBytes: der(join(dir, 'ca.pem')).toString('base64') }] },
        validFor: { start },
      },
    ],
  }
  const trustedRoot = join(dir, 'trusted_root.json')
  writeFileSync(trustedRoot, JSON.stringify(root, null, 2))
  let n = 0
  return {
    ...leaf,
    issue,
    trustedRoot,
    dir,
    timestamp(data: Buffer): Buffer {
      const id = ++n
      writeFileSync(join(dir, `data-${id}.bin`), data)
      openssl(dir, ['ts', '-query', '-data', `data-${id}.bin`, '-sha256', '-cert', '-out', `q-${id}.tsq`])
      openssl(dir, ['ts', '-reply', '-queryfile', `q-${id}.tsq`, '-config', join(dir, 'ts.cnf'), '-out', `r-${id}.tsr`])
      return readFileSync(join(dir, `r-${id}.tsr`))
    },
  }
}

/** The same CA and timestamp authority, signing as `who`. */
export function makeKeylessLike(of: Keyless, who: string): Keyless {
  return { ...of, ...of.issue(who) }
}
