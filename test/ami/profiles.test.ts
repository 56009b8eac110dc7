// A named AWS profile that no shared file defines: the files the SDK reads, the sections that are profiles, and the
// message that names them.
import { describe, expect, it } from "vitest";
import {
  missingProfile,
  profilesIn,
  sharedFilePaths,
  type SharedFile,
} from "../../src/ami/profiles.js";

describe("profilesIn", () => {
  it.each<[string, SharedFile["kind"], string, string[]]>([
    [
      "config: default and [profile x]",
      "config",
      "[default]\nregion = us-east-1\n[profile prod]\n[ profile  dev ]\n",
      ["default", "prod", "dev"],
    ],
    [
      "config: sso-session and services sections are not profiles",
      "config",
      "[sso-session corp]\n[services local]\n[profile a]\n",
      ["a"],
    ],
    ["config: a bare [name] is not a profile there", "config", "[prod]\n", []],
    [
      "credentials: every section is a profile",
      "credentials",
      "[default]\naws_access_key_id = x\n[prod]\n",
      ["default", "prod"],
    ],
    ["a missing file defines none", "config", "", []],
  ])("%s", (_, kind, text, names) => {
    expect(profilesIn({ kind, text })).toEqual(names);
  });
});

describe("sharedFilePaths", () => {
  it.each<[NodeJS.ProcessEnv, string[]]>([
    [{}, ["/home/u/.aws/config", "/home/u/.aws/credentials"]],
    [
      {
        AWS_CONFIG_FILE: "/etc/aws/config",
        AWS_SHARED_CREDENTIALS_FILE: "/etc/aws/creds",
      },
      ["/etc/aws/config", "/etc/aws/creds"],
    ],
  ])("%j", (env, paths) => {
    expect(sharedFilePaths(env, "/home/u").map((f) => f.path)).toEqual(paths);
  });
});

describe("missingProfile", () => {
  const files = (
    config: string | null,
    credentials: string | null,
  ): SharedFile[] => [
    { kind: "config", path: "/home/u/.aws/config", text: config },
    {
      kind: "credentials",
      path: "/home/u/.aws/credentials",
      text: credentials,
    },
  ];
  it.each<
    [
      string,
      Parameters<typeof missingProfile>,
      string | undefined,
      string | undefined,
    ]
  >([
    [
      "defined in config",
      ["prod", "--profile", files("[profile prod]\n", null), "/home/u"],
      undefined,
      undefined,
    ],
    [
      "defined in credentials",
      ["prod", "AWS_PROFILE", files(null, "[prod]\n"), "/home/u"],
      undefined,
      undefined,
    ],
    [
      "neither file exists",
      ["nope", "--profile", files(null, null), "/home/u"],
      '--profile nope: profile "nope" does not exist in ~/.aws/config (no such file), ~/.aws/credentials (no such file)',
      "create it (aws configure --profile nope, or aws configure sso), or point AWS_CONFIG_FILE at your config file",
    ],
    [
      "other profiles exist (from AWS_PROFILE)",
      [
        "nope",
        "AWS_PROFILE",
        files("[default]\n[profile prod]\n", "[prod]\n"),
        "/home/u",
      ],
      'AWS_PROFILE=nope: profile "nope" does not exist in ~/.aws/config, ~/.aws/credentials',
      "use one of the profiles there (default, prod; aws configure list-profiles lists them), or create it: aws configure --profile nope",
    ],
  ])("%s", (_, args, message, hint) => {
    const err = missingProfile(...args);
    expect(err?.message).toBe(message);
    expect(err?.hint).toBe(hint);
    if (err) expect(err.exitCode).toBe(2);
  });
});
