"""A FUSE file system that mirrors a directory and, like s3fs, sshfs or rclone, has no mknod:
binding a Unix socket in it fails with ENOSYS ("Function not implemented"), while files,
directories, modes, owners and fsync work. Tests mount a DATA_DIR on it (Debian's python3-fusepy).

    python3 fuse-no-sockets.py SOURCE MOUNTPOINT
"""

import errno
import os
import sys

from fusepy import FUSE, FuseOSError, Operations, fuse_get_context


class Mirror(Operations):
    # No mknod: libfuse answers ENOSYS for anything but a regular file (those go through create).
    mknod = None

    def __init__(self, root):
        self.root = root

    def _path(self, path):
        return os.path.join(self.root, path.lstrip("/"))

    def _own(self, path):
        uid, gid, _ = fuse_get_context()
        os.lchown(path, uid, gid)

    def __call__(self, op, *args):
        try:
            return super().__call__(op, *args)
        except OSError as error:
            raise FuseOSError(error.errno or errno.EIO)

    def access(self, path, mode):
        if not os.access(self._path(path), mode):
            raise FuseOSError(errno.EACCES)

    def getattr(self, path, fh=None):
        st = os.lstat(self._path(path))
        keys = ("st_atime", "st_ctime", "st_gid", "st_mode", "st_mtime", "st_nlink", "st_size", "st_uid")
        return {key: getattr(st, key) for key in keys}

    def readdir(self, path, fh):
        return [".", ".."] + os.listdir(self._path(path))

    def readlink(self, path):
        return os.readlink(self._path(path))

    def mkdir(self, path, mode):
        os.mkdir(self._path(path), mode)
        self._own(self._path(path))

    def rmdir(self, path):
        os.rmdir(self._path(path))

    def unlink(self, path):
        os.unlink(self._path(path))

    def symlink(self, target, source):
        os.symlink(source, self._path(target))
        self._own(self._path(target))

    def link(self, target, source):
        os.link(self._path(source), self._path(target))

    def rename(self, old, new):
        os.rename(self._path(old), self._path(new))

    def chmod(self, path, mode):
        os.chmod(self._path(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self._path(path), uid, gid)

    def truncate(self, path, length, fh=None):
        os.truncate(self._path(path), length)

    def utimens(self, path, times=None):
        os.utime(self._path(path), times, follow_symlinks=False)

    def statfs(self, path):
        st = os.statvfs(self._path(path))
        keys = ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail", "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")
        return {key: getattr(st, key) for key in keys}

    def open(self, path, flags):
        return os.open(self._path(path), flags)

    def create(self, path, mode, fi=None):
        fd = os.open(self._path(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        self._own(self._path(path))
        return fd

    def read(self, path, size, offset, fh):
        return os.pread(fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh, data, offset)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        os.fdatasync(fh) if datasync else os.fsync(fh)
        return 0

    def release(self, path, fh):
        os.close(fh)
        return 0


if __name__ == "__main__":
    source, mountpoint = sys.argv[1], sys.argv[2]
    FUSE(Mirror(source), mountpoint, foreground=True, allow_other=True, default_permissions=True, nothreads=False)
