import { createRequire as __karpDriftRequire } from 'node:module';
const require = __karpDriftRequire(import.meta.url);
import{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv}from"./chunk-V55V63KP.js";import"./chunk-VXCRLWZH.js";import"./chunk-GH75BAUG.js";import"./chunk-MT4FBLC7.js";import"./chunk-2SE36FIW.js";export{ENV_ACCOUNT_ID,ENV_CREDENTIAL_SCOPE,ENV_EXPIRATION,ENV_KEY,ENV_SECRET,ENV_SESSION,fromEnv};
