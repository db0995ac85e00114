build-dev/src/io/h5.o: src/io/h5.c include/feint/h5.h \
 /usr/include/hdf5/serial/hdf5.h /usr/include/hdf5/serial/H5public.h \
 /usr/include/hdf5/serial/H5pubconf.h \
 /usr/include/hdf5/serial/H5version.h \
 /usr/include/hdf5/serial/H5api_adpt.h \
 /usr/include/hdf5/serial/H5Apublic.h \
 /usr/include/hdf5/serial/H5Ipublic.h \
 /usr/include/hdf5/serial/H5Opublic.h \
 /usr/include/hdf5/serial/H5Lpublic.h \
 /usr/include/hdf5/serial/H5Tpublic.h \
 /usr/include/hdf5/serial/H5ACpublic.h \
 /usr/include/hdf5/serial/H5Cpublic.h \
 /usr/include/hdf5/serial/H5Dpublic.h \
 /usr/include/hdf5/serial/H5Epublic.h \
 /usr/include/hdf5/serial/H5Epubgen.h \
 /usr/include/hdf5/serial/H5Fpublic.h \
 /usr/include/hdf5/serial/H5FDpublic.h \
 /usr/include/hdf5/serial/H5Gpublic.h \
 /usr/include/hdf5/serial/H5MMpublic.h \
 /usr/include/hdf5/serial/H5Ppublic.h \
 /usr/include/hdf5/serial/H5Spublic.h \
 /usr/include/hdf5/serial/H5Zpublic.h \
 /usr/include/hdf5/serial/H5PLpublic.h \
 /usr/include/hdf5/serial/H5Rpublic.h /usr/include/hdf5/serial/H5FDcore.h \
 /usr/include/hdf5/serial/H5FDdirect.h \
 /usr/include/hdf5/serial/H5FDfamily.h \
 /usr/include/hdf5/serial/H5FDhdfs.h /usr/include/hdf5/serial/H5FDlog.h \
 /usr/include/hdf5/serial/H5FDmirror.h /usr/include/hdf5/serial/H5FDmpi.h \
 /usr/include/hdf5/serial/H5FDmpio.h /usr/include/hdf5/serial/H5FDmulti.h \
 /usr/include/hdf5/serial/H5FDros3.h /usr/include/hdf5/serial/H5FDsec2.h \
 /usr/include/hdf5/serial/H5FDsplitter.h \
 /usr/include/hdf5/serial/H5FDstdio.h include/feint/error.h
include/feint/h5.h:
/usr/include/hdf5/serial/hdf5.h:
/usr/include/hdf5/serial/H5public.h:
/usr/include/hdf5/serial/H5pubconf.h:
/usr/include/hdf5/serial/H5version.h:
/usr/include/hdf5/serial/H5api_adpt.h:
/usr/include/hdf5/serial/H5Apublic.h:
/usr/include/hdf5/serial/H5Ipublic.h:
/usr/include/hdf5/serial/H5Opublic.h:
/usr/include/hdf5/serial/H5Lpublic.h:
/usr/include/hdf5/serial/H5Tpublic.h:
/usr/include/hdf5/serial/H5ACpublic.h:
/usr/include/hdf5/serial/H5Cpublic.h:
/usr/include/hdf5/serial/H5Dpublic.h:
/usr/include/hdf5/serial/H5Epublic.h:
/usr/include/hdf5/serial/H5Epubgen.h:
/usr/include/hdf5/serial/H5Fpublic.h:
/usr/include/hdf5/serial/H5FDpublic.h:
/usr/include/hdf5/serial/H5Gpublic.h:
/usr/include/hdf5/serial/H5MMpublic.h:
/usr/include/hdf5/serial/H5Ppublic.h:
/usr/include/hdf5/serial/H5Spublic.h:
/usr/include/hdf5/serial/H5Zpublic.h:
/usr/include/hdf5/serial/H5PLpublic.h:
/usr/include/hdf5/serial/H5Rpublic.h:
/usr/include/hdf5/serial/H5FDcore.h:
/usr/include/hdf5/serial/H5FDdirect.h:
/usr/include/hdf5/serial/H5FDfamily.h:
/usr/include/hdf5/serial/H5FDhdfs.h:
/usr/include/hdf5/serial/H5FDlog.h:
/usr/include/hdf5/serial/H5FDmirror.h:
/usr/include/hdf5/serial/H5FDmpi.h:
/usr/include/hdf5/serial/H5FDmpio.h:
/usr/include/hdf5/serial/H5FDmulti.h:
/usr/include/hdf5/serial/H5FDros3.h:
/usr/include/hdf5/serial/H5FDsec2.h:
/usr/include/hdf5/serial/H5FDsplitter.h:
/usr/include/hdf5/serial/H5FDstdio.h:
include/feint/error.h:
