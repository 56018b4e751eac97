import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/*
 * STS's Query API for one action, GetCallerIdentity, on 127.0.0.1, so that the real
 * `@aws-sdk/client-sts` client talks to it as it would to AWS: form-encoded POST in, the real XML
 * shapes out (result and ErrorResponse). Like STS, it answers for the access key the request was
 * signed with, and refuses a key it does not know with InvalidClientTokenId.
 */

/** The identity STS reports for one access key. */
export interface StandInIdentity {
  readonly arn: string;
  readonly account: string;
  readonly userId: string;
}

/** How the stand-in answers from now on. */
type StandInMode =
  | { readonly kind: "answer" }
  /** An STS error, e.g. 403 ExpiredToken. */
  | {
      readonly kind: "error";
      readonly status: number;
      readonly code: string;
      readonly message: string;
    }
  /** Accepts the request and never answers. */
  | { readonly kind: "hang" };

export interface StsStandIn {
  /** The endpoint to give the client (`AWS_ENDPOINT_URL_STS`). */
  readonly url: string;
  /** The access key of every request received, in order. */
  readonly accessKeys: string[];
  setMode(mode: StandInMode): void;
  close(): Promise<void>;
}

const NS = "https://sts.amazonaws.com/doc/2011-06-15/";

const resultXml = (identity: StandInIdentity): string =>
  `<GetCallerIdentityResponse xmlns="${NS}">
  <GetCallerIdentityResult>
    <Arn>${identity.arn}</Arn>
    <UserId>${identity.userId}</UserId>
    <Account>${identity.account}</Account>
  </GetCallerIdentityResult>
  <ResponseMetadata>
    <RequestId>01234567-89ab-cdef-0123-456789abcdef</RequestId>
  </ResponseMetadata>
</GetCallerIdentityResponse>`;

const errorXml = (code: string, message: string): string =>
  `<ErrorResponse xmlns="${NS}">
  <Error>
    <Type>Sender</Type>
    <Code>${code}</Code>
    <Message>${message}</Message>
  </Error>
  <RequestId>01234567-89ab-cdef-0123-456789abcdef</RequestId>
</ErrorResponse>`;

/** The access key id in a SigV4 `Authorization` header (`… Credential=AKID/date/region/sts/…`). */
const accessKeyOf = (request: IncomingMessage): string =>
  /Credential=([^/]+)\//.exec(request.headers.authorization ?? "")?.[1] ?? "";

const send = (response: ServerResponse, status: number, body: string): void => {
  response.writeHead(status, { "content-type": "text/xml" });
  response.end(body);
};

/** Starts the stand-in, answering for `identities` (access key id → identity). */
export const startStsStandIn = async (
  identities: Readonly<Record<string, StandInIdentity>>,
): Promise<StsStandIn> => {
  let mode: StandInMode = { kind: "answer" };
  const accessKeys: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const accessKey = accessKeyOf(request);
      accessKeys.push(accessKey);
      if (mode.kind === "hang") return;
      if (mode.kind === "error") {
        send(response, mode.status, errorXml(mode.code, mode.message));
        return;
      }
      if (request.method !== "POST" || form.get("Action") !== "GetCallerIdentity") {
        send(response, 400, errorXml("InvalidAction", "only GetCallerIdentity is played here"));
        return;
      }
      const identity = identities[accessKey];
      if (identity === undefined) {
        send(
          response,
          403,
          errorXml(
            "InvalidClientTokenId",
            "The security token included in the request is invalid.",
          ),
        );
        return;
      }
      send(response, 200, resultXml(identity));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    accessKeys,
    setMode: (next) => {
      mode = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
