#!/bin/sh
# Rebuilds owlbear-rodeo-sdk.js, the Owlbear Rodeo SDK as ONE ES module that the extension's pages
# import directly (no build step for the people who host the extension: this file is committed).
#
# The SDK is published on npm as ES modules with extension-less imports and four dependencies
# (events, immer, js-base64, uuid), which a browser cannot load as they are; esbuild bundles them.
# Versions are pinned; run it again only to move to another SDK version (then change SDK_VERSION,
# re-read the SDK's messages the test host answers, and run tests/browser/test_owlbear_*.py).
#
#   sh examples/owlbear/vendor/build.sh
set -eu
SDK_VERSION=3.1.0
ESBUILD_VERSION=0.28.2
# The SDK's dependencies at the versions of the committed bundle (each within the SDK's ranges).
DEPENDENCIES="events@3.3.0 immer@10.2.0 js-base64@3.9.7 uuid@9.0.1"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --save-exact \
  "@owlbear-rodeo/sdk@$SDK_VERSION" $DEPENDENCIES "esbuild@$ESBUILD_VERSION" >/dev/null
printf '%s\n' 'export * from "@owlbear-rodeo/sdk";' 'export { default } from "@owlbear-rodeo/sdk";' > entry.js
./node_modules/.bin/esbuild entry.js --bundle --format=esm --platform=browser --target=es2020 \
  --minify --legal-comments=none \
  --banner:js="/* @owlbear-rodeo/sdk $SDK_VERSION (MIT, see LICENSE) with events, immer, js-base64 and uuid (see THIRD-PARTY-LICENSES), bundled by vendor/build.sh */" \
  --outfile="$here/owlbear-rodeo-sdk.js"
cp node_modules/@owlbear-rodeo/sdk/LICENSE "$here/LICENSE"
{
  for dep in events immer js-base64 uuid; do
    version=$(node -p "require('./node_modules/$dep/package.json').version")
    licence=$(ls node_modules/$dep | grep -i -m1 '^licen[cs]e')
    printf '==== %s %s (bundled into owlbear-rodeo-sdk.js) ====\n\n' "$dep" "$version"
    cat "node_modules/$dep/$licence"
    printf '\n\n'
  done
} > "$here/THIRD-PARTY-LICENSES"
echo "wrote $here/owlbear-rodeo-sdk.js ($(wc -c < "$here/owlbear-rodeo-sdk.js") bytes)"
