// SSM and EC2 failures that name what was called, where, and what to do next.
import { describe, expect, it } from "vitest";
import {
  ec2Failure,
  endpointInEffect,
  ssmFailure,
} from "../../src/ami/aws-failures.js";

describe("endpointInEffect", () => {
  it.each<
    [
      string,
      "SSM" | "EC2",
      NodeJS.ProcessEnv,
      ReturnType<typeof endpointInEffect>,
    ]
  >([
    [
      "none set: the regional endpoint",
      "SSM",
      {},
      { url: "https://ssm.eu-west-1.amazonaws.com" },
    ],
    [
      "the service variable first",
      "SSM",
      {
        AWS_ENDPOINT_URL_SSM: "http://127.0.0.1:4566",
        AWS_ENDPOINT_URL: "http://x",
      },
      { url: "http://127.0.0.1:4566", variable: "AWS_ENDPOINT_URL_SSM" },
    ],
    [
      "then the global one",
      "EC2",
      { AWS_ENDPOINT_URL_SSM: "http://a", AWS_ENDPOINT_URL: "http://b" },
      { url: "http://b", variable: "AWS_ENDPOINT_URL" },
    ],
    [
      "ignored when told to",
      "EC2",
      {
        AWS_ENDPOINT_URL_EC2: "http://a",
        AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true",
      },
      { url: "https://ec2.eu-west-1.amazonaws.com" },
    ],
  ])("%s", (_, service, env, expected) => {
    expect(endpointInEffect(service, env, "eu-west-1")).toEqual(expected);
  });
});

const refused = Object.assign(
  new Error("connect ECONNREFUSED 127.0.0.1:4566"),
  { code: "ECONNREFUSED" },
);

describe("an endpoint that does not answer", () => {
  it.each<[string, () => ReturnType<typeof ssmFailure>, string, string]>([
    [
      "SSM through AWS_ENDPOINT_URL_SSM",
      () =>
        ssmFailure(refused, ["/aws/service/x"], "us-west-2", {
          AWS_ENDPOINT_URL_SSM: "http://127.0.0.1:4566",
        }),
      "SSM GetParameters in us-west-2 failed: nothing answers at http://127.0.0.1:4566 (AWS_ENDPOINT_URL_SSM): ECONNREFUSED",
      "AWS_ENDPOINT_URL_SSM points there: start what it names (for karp-drift's sandbox: eval \"$(karp-drift sandbox --detach)\"), or unset AWS_ENDPOINT_URL_SSM to reach AWS itself",
    ],
    [
      "EC2 at AWS, the code only in the message",
      () =>
        ec2Failure(
          new Error("getaddrinfo ENOTFOUND ec2.us-west-2.amazonaws.com"),
          "us-west-2",
          {},
        ),
      "EC2 DescribeImages in us-west-2 failed: nothing answers at https://ec2.us-west-2.amazonaws.com: ENOTFOUND",
      "check the network, the proxy (HTTPS_PROXY) and --region",
    ],
  ])("%s", (_, failure, message, hint) => {
    const err = failure();
    expect(err.message).toBe(message);
    expect(err.hint).toBe(hint);
    expect(err.exitCode).toBe(1);
  });
});
