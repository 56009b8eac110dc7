import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
var LAUNCH_TTL_MS=5*6e4;var REGISTRATION_TTL_MS=15*6e4;var COMMAND_TIMEOUT_MS=10*6e4;var IMAGE_LAUNCH_REASONS=new Set(["AMIAuthorizationFailure","InvalidAMIID","AMINotFound","LaunchFailed"]);export{LAUNCH_TTL_MS,REGISTRATION_TTL_MS,COMMAND_TIMEOUT_MS,IMAGE_LAUNCH_REASONS};
