BdataJP5
3 6
255
˜eádDA×á½CYø†N