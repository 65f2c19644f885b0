// A security key in software, for the API tests: an ES256 key pair that answers WebAuthn options
// with the JSON a browser would post ('none' attestation, CBOR built with @simplewebauthn's own
// encoder, a DER ECDSA signature over authenticatorData ‖ SHA-256(clientDataJSON)). Each part a
// test wants to spoil (origin, RP id, challenge, counter, flags, attachment) can be overridden.
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers';

type CreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
type RequestOptions = { challenge: string; rpId?: string };

export type Spoil = {
  origin?: string;
  rpId?: string;
  challenge?: string;
  type?: string;
  /** Flags of authenticatorData: user present 0x01, user verified 0x04. */
  flags?: number;
  counter?: number;
  attachment?: string | null;
  userHandle?: string | null;
};

const b64 = (bytes: Uint8Array | Buffer) => isoBase64URL.fromBuffer(new Uint8Array(bytes));
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const u32 = (n: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(n);
  return out;
};

export function createSoftwareAuthenticator(defaults: { origin: string; rpId: string }) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const credentialId = randomBytes(32);
  const id = b64(credentialId);
  let counter = 0;
  let userHandle: string | undefined;

  const cosePublicKey = isoCBOR.encode(
    new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, isoBase64URL.toBuffer(jwk.x!)],
      [-3, isoBase64URL.toBuffer(jwk.y!)],
    ]),
  );

  const clientData = (type: string, challenge: string, spoil: Spoil) =>
    Buffer.from(
      JSON.stringify({ type: spoil.type ?? type, challenge: spoil.challenge ?? challenge, origin: spoil.origin ?? defaults.origin, crossOrigin: false }),
    );

  return {
    /** base64url, as the server stores it. */
    id,
    get counter() {
      return counter;
    },

    /** navigator.credentials.create(), as @simplewebauthn/browser's startRegistration returns it. */
    register(options: CreationOptions, spoil: Spoil = {}) {
      userHandle = options.user.id;
      const clientDataJSON = clientData('webauthn.create', options.challenge, spoil);
      const idLength = Buffer.alloc(2);
      idLength.writeUInt16BE(credentialId.length);
      const authData = Buffer.concat([
        sha256(spoil.rpId ?? options.rp.id ?? defaults.rpId),
        Buffer.from([spoil.flags ?? 0x45]), // UP, UV, attested credential data
        u32(spoil.counter ?? counter),
        Buffer.alloc(16), // AAGUID
        idLength,
        credentialId,
        Buffer.from(cosePublicKey),
      ]);
      const attestationObject = isoCBOR.encode(
        new Map<string, string | Uint8Array | Map<string, string>>([
          ['fmt', 'none'],
          ['attStmt', new Map<string, string>()],
          ['authData', new Uint8Array(authData)],
        ]),
      );
      return {
        id,
        rawId: id,
        type: 'public-key',
        response: { clientDataJSON: b64(clientDataJSON), attestationObject: b64(attestationObject), transports: ['usb'], publicKeyAlgorithm: -7 },
        clientExtensionResults: {},
        ...(spoil.attachment === null ? {} : { authenticatorAttachment: spoil.attachment ?? 'cross-platform' }),
      };
    },

    /** navigator.credentials.get(): each call counts one use, unless `counter` is spoiled. */
    authenticate(options: RequestOptions, spoil: Spoil = {}) {
      if (spoil.counter === undefined) counter++;
      const clientDataJSON = clientData('webauthn.get', options.challenge, spoil);
      const authData = Buffer.concat([sha256(spoil.rpId ?? options.rpId ?? defaults.rpId), Buffer.from([spoil.flags ?? 0x05]), u32(spoil.counter ?? counter)]);
      const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), privateKey);
      const handle = spoil.userHandle === undefined ? userHandle : spoil.userHandle;
      return {
        id,
        rawId: id,
        type: 'public-key',
        response: {
          clientDataJSON: b64(clientDataJSON),
          authenticatorData: b64(authData),
          signature: b64(signature),
          ...(handle ? { userHandle: handle } : {}),
        },
        clientExtensionResults: {},
        ...(spoil.attachment === null ? {} : { authenticatorAttachment: spoil.attachment ?? 'cross-platform' }),
      };
    },
  };
}

export type SoftwareAuthenticator = ReturnType<typeof createSoftwareAuthenticator>;
