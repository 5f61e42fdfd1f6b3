# The data directory and what the server writes in it are its user's alone, whatever umask it
# was started with (docs/security.md, "File modes"). The suite's server created $WORK/data.
echo "== data directory modes"

expect_eq "the data directory the server created is 0700" 700 "$(stat -c %a "$WORK/data")"
for file in store.sqlite events.sqlite admin-token; do
    expect_eq "data/$file is 0600" 600 "$(stat -c %a "$WORK/data/$file")"
done
modes=$(find "$WORK/data" -type f -perm /077 -printf '%m %p\n')
expect_eq "no file in the data directory is open to group or others" "" "$modes"
